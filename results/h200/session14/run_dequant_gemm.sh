#!/bin/bash
# Session 14: the dequantize-first GEMM (matmul_quant_cm_f16w.comp) of
# matmul_q4_0 on the shared skeleton, against the templates before it
# (old_templates/, carried): as committed (CM_PREFETCH 0, chunks of 4), and
# two trials (exp/qv8: chunks of 8, 16-byte W16 loads; exp/qv8p: the same
# with the next slice prefetched). The same configs (DEQUANT_STAGE=1, DQ_WG
# 256, DQ_RUN 8), exhaustive, fresh databases, fixed seed.
set -u
source results/h200/session12/device_env.sh
Q="--only USE_COOPMAT=1 --only DEQUANT_STAGE=1 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 \
   --only TILE_N=64,128 --only TILE_K=32,64 --only CM_SHAPE=0,2 --only WARPS_M=2,4 --only WARPS_N=2,4"
for t in old_templates templates exp/qv8 exp/qv8p; do
  vktune matmul_q4_0 --device 0 --templates $t --shape 512,4096,4096 --shape 512,14336,4096 $Q --strategy exhaustive \
    --no-transfer --time 100s --seed 14 --top 4 --db /tmp/q.db_${t//\//_} > /tmp/q_${t//\//_}.txt 2>&1
  echo "== $t exit $?" >> "$OUT/dequant_gemm.txt"
  grep -E "^\s+[0-9]+ +[0-9.]+ |winner|space:" /tmp/q_${t//\//_}.txt | cut -c1-240 >> "$OUT/dequant_gemm.txt"
done
