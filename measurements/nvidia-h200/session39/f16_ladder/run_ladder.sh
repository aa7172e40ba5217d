#!/bin/bash
# Session 39, issue 42 item 2: the fp16 GEMM skeleton's stage ladder (see
# make_ladder.py for the arms) on matmul_f16's committed winners at
# 4096,4096,4096 and 512,4096,14336, one variant each (every parameter fixed
# by --only, exhaustive, cold caches as tuned), with vktune-ladder: this
# commit's vktune with tolerance.patch (matmul_f16's tolerance 1e30; the
# arms' numbers are wrong and finite). Each arm has its own database.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune-ladder --version > "$OUT/version.txt" 2>&1
D=measurements/nvidia-h200/session39/f16_ladder
for arm in L0 L1 L2 L3 L4; do
  rm -rf /tmp/lad_$arm
  python3 $D/make_ladder.py templates /tmp/lad_$arm $arm
  diff -u templates/include/coopmat_gemm.glsl /tmp/lad_$arm/include/coopmat_gemm.glsl > "$OUT/arm_$arm.diff"
done
common="--only CM_STAGES=1 --only USE_COOPMAT=1 --only VEC=8 --only THREAD_M=4 --only THREAD_N=4 --only TILE_M=128 --only TILE_N=128 --only CM_SHAPE=0"
for round in 1 2; do
  for arm in L0 L1 L2 L3 L4; do
    for shape in 4096,4096,4096 512,4096,14336; do
      case $shape in
        4096,4096,4096) cfg="--only TILE_K=32 --only WARPS_M=2 --only WARPS_N=2" ;;
        *) cfg="--only TILE_K=64 --only WARPS_M=2 --only WARPS_N=4" ;;
      esac
      start=$(date +%s)
      rm -f /tmp/l.db*
      timeout 120 vktune-ladder matmul_f16 --device 0 -s $shape --templates /tmp/lad_$arm --strategy exhaustive \
        $common $cfg --time 90s --seed 39 --db /tmp/l.db > "$OUT/r${round}_${arm}_${shape}.txt" 2> "$OUT/r${round}_${arm}_${shape}.stderr.txt"
      echo "round $round arm $arm $shape exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
    done
  done
done
