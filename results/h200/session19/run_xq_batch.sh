#!/bin/bash
# Session 19: x quantization's loads batched (include/x_q8.glsl, XQ_BATCH
# iterations' loads issued before their math). The session-18 H200 winners
# of the decode targets (as in run_decode_ladder.sh), each with the template
# copies exp/B1, B2, B4, B8 (XQ_BATCH 1 = the loads of one iteration at a
# time, as before), .dist/bin/vktune (numerics unchanged: the gate's
# tolerance holds). Run from the repository root with .gl, .dist/bin,
# .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
COMMON="--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only UNROLL=1 --only W_STAGE=0 --only X_QUANT=1"
Q6="$COMMON --only SUPER_BLOCK=1"
Q8="$COMMON --only BLOCK_PAIRS=1 --only THREADS_PER_ROW=32 --only WG_SIZE=256"
for run in \
  "matmul_q6k|1,4096,4096|$Q6 --only THREADS_PER_ROW=16 --only WG_SIZE=256 --only X_SEGMENT=4096" \
  "matmul_q6k|1,14336,4096|$Q6 --only THREADS_PER_ROW=8 --only WG_SIZE=128 --only X_SEGMENT=4096" \
  "matmul_q6k|1,4096,14336|$Q6 --only THREADS_PER_ROW=32 --only WG_SIZE=256 --only X_SEGMENT=16384" \
  "matmul_q8_0|1,4096,4096|$Q8 --only X_SEGMENT=4096" \
  "matmul_q8_0|1,14336,4096|$Q8 --only X_SEGMENT=4096" \
  "matmul_q4_0|1,4096,14336|$Q8 --only X_SEGMENT=16384"; do
  IFS='|' read -r k shape only <<< "$run"
  for b in ${BATCHES:-1 2 4 8}; do
    vktune $k --device 0 --shape $shape --cache hot $only --templates exp/B$b --strategy exhaustive --no-transfer \
      --seed 19 --top 1 --db /tmp/xb_$b.db > /tmp/t.txt 2>&1
    { echo "== B$b $k $shape exit $?"; grep -E "^ +1 +[0-9.]+ |evaluated" /tmp/t.txt | cut -c1-120; } >> "$OUT/xq_batch.txt"
  done
done
