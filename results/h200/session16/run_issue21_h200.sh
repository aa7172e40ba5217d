#!/bin/bash
# Session 16: issue 21's kernels on an H200 in one call (at most 8 files
# come back): attention_prefill tuned exhaustively at its three default
# shapes (fresh database, table exported), the three MobileNet V2 convolution
# specs tuned at their default shapes and the chain run with those winners
# and with the baselines (checked against the CPU chain), depthwise 3x3 at
# 112x112x96 stride 2 at batch 1 and 8, and the device's ceilings.
set -u
source results/h200/session12/device_env.sh
for shape in 512,32,8,128,512 2048,32,8,128,2048 2048,32,8,64,2048; do
  vktune attention_prefill --device 0 --shape $shape --strategy exhaustive --time ${PREFILL_SECONDS:-55}s --seed 16 \
    --top 5 --db /tmp/prefill.db > /tmp/t.txt 2>&1
  { echo "== attention_prefill $shape"; grep -E -A7 "rank " /tmp/t.txt | cut -c1-200; grep -E "winner .* vs" /tmp/t.txt; } \
    >> "$OUT/prefill.txt"
done
vktune export --db /tmp/prefill.db > "$OUT/prefill_table.json" 2>> "$OUT/prefill.txt"
db=/tmp/mobilenet.db
for spec in examples/mobilenet_stem/stem.json examples/mobilenet_depthwise/depthwise.json \
            examples/mobilenet_pointwise/pointwise.json; do
  vktune "$spec" --device 0 --time ${MOBILENET_SECONDS:-50}s --seed 16 --top 1 --db $db > /tmp/t.txt 2>&1
  { echo "== $spec exit $?"; grep -E "winner .* vs|^[^ ].*: [0-9]+/[0-9]+ done" /tmp/t.txt | tail -40; } >> "$OUT/mobilenet_tunes.txt"
done
vktune mobilenet --device 0 --db $db --check > "$OUT/chain_tuned.txt" 2>&1; echo "== exit $?" >> "$OUT/chain_tuned.txt"
vktune mobilenet --device 0 --db $db --baseline --check 2>&1 | tail -12 > "$OUT/chain_baseline.txt"
for shape in 1,112,112,96,2,56,56 8,112,112,96,2,56,56; do
  vktune examples/mobilenet_depthwise/depthwise.json --device 0 --shape $shape --time 30s --seed 16 --top 3 \
    --db /tmp/dw.db > /tmp/t.txt 2>&1
  { echo "== depthwise $shape"; grep -A4 "rank " /tmp/t.txt | cut -c1-200; grep -E "winner .* vs" /tmp/t.txt; } >> "$OUT/dw.txt"
done
vktune devices --remeasure --device 0 --db /tmp/dw.db > "$OUT/devices.txt" 2>&1
