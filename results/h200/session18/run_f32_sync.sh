#!/bin/bash
# Session 18: matmul_f32 at 4096³ without the register prefetch
# (exp_patches/F3.patch: each slice loaded and stored right before its
# multiply) against the committed template, at 128×128 tiles with 8×8
# register tiles, vec4, every legal TILE_K 8-32, STAGES and LANES_N (--space
# full), fixed seed, fresh databases, one call. Run from the repository root
# with .gl, .dist/bin/vktune (this commit's build tree), .dist/lib and exp.
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
for t in templates exp/F3; do
  vktune matmul_f32 --device 0 --shape 4096,4096,4096 --templates $t --only TILE_M=128 --only TILE_N=128 \
    --only THREAD_M=8 --only THREAD_N=8 --only VEC=4 --only TILE_K=8,16,32 --strategy exhaustive --no-transfer \
    --space full --seed 18 --top 12 --db /tmp/sync_${t//\//_}.db > /tmp/t.txt 2>&1
  { echo "== $t exit $?"; grep -E "^ +[0-9]+ +[0-9.]+ |winner" /tmp/t.txt | cut -c1-200; } >> "$OUT/f32_sync.txt"
done
