#!/bin/bash
# Session 18, call 4 (the GPU of call 3, warm): matmul_f32 at 4096³, every
# legal TILE_K and STAGES at the committed winner's 128×128 tile with 8×8
# register tiles (double buffering needs two slices in the 48 KiB of shared
# memory). Run from the repository root with .gl, .dist/bin/vktune and .dist/lib.
source results/h200/session12/device_env.sh
vktune matmul_f32 --device 0 --shape 4096,4096,4096 --only TILE_M=128 --only TILE_N=128 --only THREAD_M=8 \
  --only THREAD_N=8 --only VEC=4 --only LANES_N=8 --strategy exhaustive --no-transfer --space full --seed 18 --top 8 \
  --db /tmp/s.db > $OUT/f32_stages.txt 2>&1
