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
source results/h200/session19/decode_winners.sh
for run in "${RUNS[@]}"; do
  IFS='|' read -r k shape only <<< "$run"
  for b in ${BATCHES:-1 2 4 8}; do
    vktune $k --device 0 --shape $shape --cache hot $only --templates exp/B$b --strategy exhaustive --no-transfer \
      --seed 19 --top 1 --db /tmp/xb_$b.db > /tmp/t.txt 2>&1
    { echo "== B$b $k $shape exit $?"; grep -E "^ +1 +[0-9.]+ |evaluated" /tmp/t.txt | cut -c1-120; } >> "$OUT/xq_batch.txt"
  done
done
