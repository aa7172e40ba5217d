#!/bin/bash
# Session 14: the quantized prefill's tensor-core paths on matmul_f16's
# skeleton (include/coopmat_gemm.glsl: the next slice's loads in registers
# while this one multiplies). First the correctness gate over every path of
# the six matmul kernels (the pairwise covering array at the check shapes),
# then old (old_templates/, carried: the templates before the change) and
# new templates at 512×4096×4096, the same configs, fresh databases, fixed
# seed: the fused and dequantize-first paths of matmul_q4_0 and matmul_q4k,
# and matmul_f16's tensor-core path (whose template only moved). Run from the
# repository root.
set -u
source results/h200/session12/device_env.sh
( time vktune check matmul_f16 matmul_q4_0 matmul_q4k matmul_q8_0 matmul_q5k matmul_q6k --device 0 \
    --variants covering ) > /tmp/check.txt 2>&1
echo "check exit $?" >> "$OUT/skeleton.txt"
grep -E "passed|failed|FAIL|real" /tmp/check.txt | tail -15 >> "$OUT/skeleton.txt"
Q="--only USE_COOPMAT=1 --only DEQUANT_STAGE=0,1 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 \
   --only TILE_N=64,128 --only TILE_K=32,64 --only CM_SHAPE=0,2 --only WARPS_M=2,4 --only WARPS_N=2,4"
F="--only USE_COOPMAT=1 --only TILE_M=128 --only TILE_N=128 --only TILE_K=32,64 --only CM_SHAPE=0,1 \
   --only WARPS_M=2,4 --only WARPS_N=2,4 --only VEC=8 --only CM_STAGES=1,2"
for k in matmul_q4_0 matmul_q4k matmul_f16; do
  opts=$Q; [ $k = matmul_f16 ] && opts=$F
  for t in old_templates templates; do
    vktune $k --device 0 --templates $t --shape 512,4096,4096 $opts --strategy exhaustive --no-transfer \
      --time 75s --seed 14 --top 12 --db /tmp/${k}_$t.db > /tmp/${k}_$t.txt 2>&1
    echo "== $k $t exit $?" >> "$OUT/skeleton.txt"
    grep -E "^\s+[0-9]+ +[0-9.]+ |winner|space:|search:" /tmp/${k}_$t.txt >> "$OUT/skeleton.txt"
  done
done
