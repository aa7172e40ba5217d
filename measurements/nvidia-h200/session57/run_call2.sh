#!/bin/bash
# Session 57, call 2, issue 42, on an H200 other than call 1's: (1) the
# candidate table.json (call 1's four matmul_f16 winners merged with
# `vktune import --newest-per-model`) imported alone, `vktune bench
# matmul_f16 --max-drift 10`; (2) the skeleton's stage ladder
# (make_ladder.py) that call 1 did not run (vktune-ladder was not on its
# PATH: run_call1.sh did not source device_env.sh), at 512,4096,4096 and
# 512,14336,4096 with call 1's winner config at both (the same config won
# both shapes), each arm one variant, every parameter fixed by --only,
# exhaustive, cold, a database of its own, two rounds while the call has
# time. vktune-ladder: this commit's vktune with
# session39/f16_ladder/tolerance.patch (the arms' numbers are wrong and
# finite).
set -u
source measurements/device_env.sh
start_call
D=measurements/nvidia-h200/session57
call_start=$(date +%s)
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
import_table /tmp/b.db
run "bench matmul_f16 --max-drift 10" timeout 200 vktune bench matmul_f16 --device 0 --db /tmp/b.db --max-drift 10 \
  > "$OUT/bench_matmul_f16.txt" 2> "$OUT/bench_matmul_f16.stderr.txt"
for arm in L0 L1 L2 L3 L4; do
  rm -rf /tmp/lad_$arm
  python3 $D/make_ladder.py templates /tmp/lad_$arm $arm
  diff -u templates/include/coopmat_gemm.glsl /tmp/lad_$arm/include/coopmat_gemm.glsl > "$OUT/arm_$arm.diff"
done
cfg="--only USE_COOPMAT=1 --only VEC=8 --only CM_STAGES=1 --only THREAD_M=4 --only THREAD_N=4 --only CM_SHAPE=0
  --only CM_PREFETCH=2 --only TILE_K=64 --only TILE_M=128 --only TILE_N=128 --only WARPS_M=4 --only WARPS_N=2"
for round in 1 2; do
  for shape in 512,4096,4096 512,14336,4096; do
    for arm in L0 L1 L2 L3 L4; do
      if [ $(( $(date +%s) - call_start )) -gt 540 ]; then
        echo "ladder stopped before round $round $arm $shape: the call's time" >> "$OUT/log.txt"; break 3
      fi
      rm -f /tmp/l.db*
      run "ladder_r${round}_${arm}_$shape" timeout 60 vktune-ladder matmul_f16 --device 0 -s $shape \
        --templates /tmp/lad_$arm --strategy exhaustive $cfg --time 45s --seed 57 --db /tmp/l.db \
        > "$OUT/ladder_r${round}_${arm}_$shape.txt" 2> "$OUT/ladder_r${round}_${arm}_$shape.stderr.txt"
    done
  done
done
