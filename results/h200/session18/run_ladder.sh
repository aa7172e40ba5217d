#!/bin/bash
# Session 18: what limits attention_prefill's tensor-core path, by leaving its
# stages out one at a time (issue 21's 150 TFLOP/s bar). The committed kernel
# (E0) and three copies of the templates, each with one change to
# attention_prefill_mma.comp (exp_patches/E*.patch):
#   E1  the softmax left out: no mask, no running row max, no exp2 (the
#       weights are 1 + S/1024, so the products still depend on the scores);
#   E2  the P·V product left out (no V tiles read back, O stays 0);
#   E4  staging only: the loop's global loads, shared stores and barriers,
#       no products, no softmax.
# The experiment runs with exp/bin/vktune: this commit built with
# attention_prefill's MMA=1 tolerance at 1e30 (exp_patches/tolerance.patch),
# since the experiments compute other numbers (outputs must still be finite).
# Every variant at the winning configs' neighbourhood: MMA=1, BC=32,
# WG_SIZE=128, PREFETCH=1, MT 1 and 2; fixed seed, fresh databases. Then
# matmul_f16's committed winner at 4096³ on the same GPU (the GEMM loop the
# products share). Run from the repository root with .gl, .dist and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/exp/lib  # exp/bin/vktune is a build-tree binary: libmuparser beside it
ONLY="--only MMA=1 --only BC=32 --only WG_SIZE=128 --only PREFETCH=1"
for shape in 2048,32,8,128,2048 2048,32,8,64,2048; do
  for e in E0 E1 E2 E4; do
    if [ $e = E0 ]; then bin=vktune; t=""; else bin=exp/bin/vktune; t="--templates exp/$e"; fi
    $bin attention_prefill --device 0 --shape $shape $ONLY $t --strategy exhaustive --no-transfer --seed 18 \
      --top 2 --db /tmp/ladder_$e.db > /tmp/t.txt 2>&1
    { echo "== $e $shape exit $?"; grep -E "^ +[0-9]+ +[0-9.]+ |winner" /tmp/t.txt | cut -c1-200; } >> "$OUT/ladder.txt"
  done
done
vktune matmul_f16 --device 0 --shape 4096,4096,4096 --only USE_COOPMAT=1 --only CM_SHAPE=0 --only CM_STAGES=1 \
  --only TILE_K=32 --only TILE_M=256 --only TILE_N=128 --only WARPS_M=4 --only WARPS_N=2 --only VEC=8 \
  --strategy exhaustive --no-transfer --seed 18 --top 2 --db /tmp/gemm.db > /tmp/t.txt 2>&1
{ echo "== matmul_f16 4096^3 committed winner exit $?"; grep -E "^ +[0-9]+ +[0-9.]+ |winner" /tmp/t.txt | cut -c1-200; } >> "$OUT/ladder.txt"
