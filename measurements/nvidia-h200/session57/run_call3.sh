#!/bin/bash
# Session 57, call 3, issue 42: call 2 landed on call 1's GPU (its gpu.txt),
# so its drift check timed the winners on the GPU that tuned them. This
# call, on a machine started afresh, repeats it: the candidate table.json
# imported alone, `vktune bench matmul_f16 --max-drift 10`; then the
# ladder's L0, L3 and L4 arms (make_ladder.py, as in run_call2.sh) once more
# on this GPU.
set -u
source measurements/device_env.sh
start_call
D=measurements/nvidia-h200/session57
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
import_table /tmp/b.db
run "bench matmul_f16 --max-drift 10" timeout 200 vktune bench matmul_f16 --device 0 --db /tmp/b.db --max-drift 10 \
  > "$OUT/bench_matmul_f16.txt" 2> "$OUT/bench_matmul_f16.stderr.txt"
for arm in L0 L3 L4; do
  rm -rf /tmp/lad_$arm
  python3 $D/make_ladder.py templates /tmp/lad_$arm $arm
done
cfg="--only USE_COOPMAT=1 --only VEC=8 --only CM_STAGES=1 --only THREAD_M=4 --only THREAD_N=4 --only CM_SHAPE=0
  --only CM_PREFETCH=2 --only TILE_K=64 --only TILE_M=128 --only TILE_N=128 --only WARPS_M=4 --only WARPS_N=2"
for shape in 512,4096,4096 512,14336,4096; do
  for arm in L0 L3 L4; do
    rm -f /tmp/l.db*
    run "ladder_r3_${arm}_$shape" timeout 60 vktune-ladder matmul_f16 --device 0 -s $shape \
      --templates /tmp/lad_$arm --strategy exhaustive $cfg --time 45s --seed 57 --db /tmp/l.db \
      > "$OUT/ladder_r3_${arm}_$shape.txt" 2> "$OUT/ladder_r3_${arm}_$shape.stderr.txt"
  done
done
