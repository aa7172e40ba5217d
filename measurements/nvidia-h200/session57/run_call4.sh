#!/bin/bash
# Session 57, call 4, issue 42: the skeleton's stage ladder (make_ladder.py,
# as in run_call2.sh) at 4096,4096,4096 with call 1's winner config there
# (256×128 tiles, 4×2 subgroups, TILE_K 32, two slices in flight), every
# arm once; session 39 laddered that shape with one slice in flight.
set -u
source measurements/device_env.sh
start_call
D=measurements/nvidia-h200/session57
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
cfg="--only USE_COOPMAT=1 --only VEC=8 --only CM_STAGES=1 --only THREAD_M=4 --only THREAD_N=4 --only CM_SHAPE=0
  --only CM_PREFETCH=2 --only TILE_K=32 --only TILE_M=256 --only TILE_N=128 --only WARPS_M=4 --only WARPS_N=2"
for arm in L0 L1 L2 L3 L4; do
  rm -rf /tmp/lad_$arm /tmp/l.db*
  python3 $D/make_ladder.py templates /tmp/lad_$arm $arm
  run "ladder_${arm}_4096,4096,4096" timeout 70 vktune-ladder matmul_f16 --device 0 -s 4096,4096,4096 \
    --templates /tmp/lad_$arm --strategy exhaustive $cfg --time 60s --seed 57 --db /tmp/l.db \
    > "$OUT/ladder_${arm}_4096,4096,4096.txt" 2> "$OUT/ladder_${arm}_4096,4096,4096.stderr.txt"
done
