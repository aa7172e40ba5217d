#!/bin/bash
# Session 57, call 1, issue 42: (1) run_retune.sh, prepared in session 56:
# table.json's four matmul_f16 prefill winners re-tuned with two slices in
# flight available, this database's matmul_f16 winners exported; (2) the
# skeleton's stage ladder (make_ladder.py) at 512,4096,4096 and
# 512,14336,4096, each arm timing one config, every parameter fixed by
# --only, exhaustive, cold, a database of its own, with vktune-ladder (this
# commit's vktune with session39/f16_ladder/tolerance.patch). The config is
# session 56's GEMM-stage config at each shape (session56/quant_ladder:
# 76.7 and 292.5 µs there).
set -u
D=measurements/nvidia-h200/session57
call_start=$(date +%s)
bash $D/run_retune.sh
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
for arm in L0 L1 L2 L3 L4; do
  rm -rf /tmp/lad_$arm
  python3 $D/make_ladder.py templates /tmp/lad_$arm $arm
  diff -u templates/include/coopmat_gemm.glsl /tmp/lad_$arm/include/coopmat_gemm.glsl > "$OUT/arm_$arm.diff"
done
common="--only USE_COOPMAT=1 --only VEC=8 --only CM_STAGES=1 --only THREAD_M=4 --only THREAD_N=4 --only TILE_M=128 --only CM_SHAPE=1"
for round in 1 2; do
  for shape in 512,4096,4096 512,14336,4096; do
    case $shape in
      512,4096,4096) cfg="--only CM_PREFETCH=2 --only TILE_K=64 --only TILE_N=128 --only WARPS_M=4 --only WARPS_N=2" ;;
      *) cfg="--only CM_PREFETCH=1 --only TILE_K=32 --only TILE_N=256 --only WARPS_M=2 --only WARPS_N=4" ;;
    esac
    for arm in L0 L1 L2 L3 L4; do
      if [ $(( $(date +%s) - call_start )) -gt 545 ]; then
        echo "ladder stopped before round $round $arm $shape: the call's time" >> "$OUT/log.txt"; break 3
      fi
      label="ladder_r${round}_${arm}_$shape"
      rm -f /tmp/l.db*
      start=$(date +%s)
      timeout 60 vktune-ladder matmul_f16 --device 0 -s $shape --templates /tmp/lad_$arm --strategy exhaustive \
        $common $cfg --time 45s --seed 57 --db /tmp/l.db > "$OUT/$label.txt" 2> "$OUT/$label.stderr.txt"
      echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
    done
  done
done
