#!/bin/bash
# Session 18: what limits exact fp32 at 4096³ (issue 20's 75%-of-FMA target),
# by leaving stages out of matmul_f32's tiled body (templates/include/
# matmul_tiled.glsl; exp_patches/F*.patch), at the committed H200 winner's
# config (TILE 128×128×32, THREAD 8×8, VEC=4, LANES_N=8) and at STAGES 1 and 2:
#   F0  the kernel;
#   F1  no global loads past the first slice (its registers are stored to
#       shared memory again every slice, barriers as before);
#   F2  the multiply alone: the first slice staged once, then every slice
#       multiplies it (no global loads, shared stores or barriers in the loop).
# F1 and F2 compute other numbers, so they run with exp/bin/vktune (this
# commit with dense matmul's tolerance at 1e30, exp_patches/tolerance_f32.patch).
# Then the device's FMA ceiling in the same call. Run from the repository root
# with .gl, .dist/bin/vktune, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/exp/lib
ONLY="--only TILE_M=128 --only TILE_N=128 --only TILE_K=32 --only THREAD_M=8 --only THREAD_N=8 --only VEC=4 --only LANES_N=8"
for e in F0 F1 F2; do
  if [ $e = F0 ]; then bin=vktune; t=""; else bin=exp/bin/vktune; t="--templates exp/$e"; fi
  $bin matmul_f32 --device 0 --shape 4096,4096,4096 $ONLY $t --strategy exhaustive --no-transfer --space full --seed 18 \
    --top 3 --db /tmp/f32_$e.db > /tmp/t.txt 2>&1
  { echo "== $e exit $?"; grep -E "^ +[0-9]+ +[0-9.]+ |winner|FMA|fma" /tmp/t.txt | cut -c1-200; } >> "$OUT/ladder_f32.txt"
done
vktune devices --remeasure --device 0 --db /tmp/f32_F0.db > "$OUT/devices.txt" 2>&1
