#!/bin/bash
# Session 18: matmul_f32 at 4096³ after its STAGES rule left legality (any
# slice takes one buffer or two where they fit): every legal TILE_K, STAGES
# and LANES_N at 128×128 and 64×128 tiles with 8×8 and 8×4 register tiles,
# vec4 loads, every legal config (--space full), fixed seed, fresh database.
# Run from the repository root with .gl, .dist/bin/vktune and .dist/lib.
source measurements/device_env.sh
vktune matmul_f32 --device 0 --shape 4096,4096,4096 --only TILE_M=64,128 --only TILE_N=128 --only THREAD_M=8 \
  --only THREAD_N=4,8 --only VEC=4 --strategy exhaustive --no-transfer --space full --seed 18 --top 12 \
  --db /tmp/l.db > $OUT/f32_legal.txt 2>&1
vktune devices --remeasure --device 0 --db /tmp/l.db > "$OUT/devices.txt" 2>&1
