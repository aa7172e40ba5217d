#!/bin/bash
# Session 14: the shared tensor-core skeleton (include/coopmat_gemm.glsl)
# after its CM_PREFETCH=0 staging became the quantized skeleton's (each
# chunk staged as soon as it is loaded). The correctness gate over every
# path of the six matmul kernels, then old templates (old_templates/,
# carried) and new at the two shapes where the first version differed: the
# dequantize-first and fused paths of matmul_q4_0, and matmul_f16's
# tensor-core path. Fresh databases, fixed seed.
set -u
source results/h200/session12/device_env.sh
( time vktune check matmul_f16 matmul_q4_0 matmul_q4k matmul_q8_0 matmul_q5k matmul_q6k --device 0 \
    --variants covering ) > /tmp/check.txt 2>&1
echo "check exit $?" >> "$OUT/skeleton2.txt"
grep -E "passed|failed|FAIL|real" /tmp/check.txt | tail -4 >> "$OUT/skeleton2.txt"
Q="--only USE_COOPMAT=1 --only DEQUANT_STAGE=0,1 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 \
   --only TILE_N=64,128 --only TILE_K=32,64 --only CM_SHAPE=0,2 --only WARPS_M=2,4 --only WARPS_N=2,4"
F="--only USE_COOPMAT=1 --only TILE_M=128 --only TILE_N=128 --only TILE_K=32,64 --only CM_SHAPE=0,1 \
   --only WARPS_M=2,4 --only WARPS_N=2,4 --only VEC=8 --only CM_STAGES=1,2"
for k in matmul_q4_0 matmul_f16; do
  opts=$Q; [ $k = matmul_f16 ] && opts=$F
  for t in old_templates templates; do
    vktune $k --device 0 --templates $t --shape 512,4096,4096 --shape 512,14336,4096 $opts --strategy exhaustive \
      --no-transfer --time 100s --seed 14 --top 40 --db /tmp/${k}_$t.db > /tmp/${k}_$t.txt 2>&1
    echo "== $k $t exit $?" >> "$OUT/skeleton2.txt"
    grep -E "^\s+[0-9]+ +[0-9.]+ |winner|space:" /tmp/${k}_$t.txt | cut -c1-250 >> "$OUT/skeleton2.txt"
  done
done
