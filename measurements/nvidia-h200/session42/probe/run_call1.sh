#!/bin/bash
# Session 42, call 1 (issue 42, item 4: the 512-token prefill): where the two
# largest costs after the products could give.
#  1. attention_prefill at Llama-3-8B's 512-token prompt (7.7% of the prefill
#     at 113.8 us a layer, about 19 TFLOP/s where the same kernel reaches 107
#     at 2048 tokens): the tensor-core path searched exhaustively, every
#     variant's time kept (measurements CSV, the driver's statistics).
#  2. gate and up as one stacked product (512,28672,4096) against each alone
#     (512,14336,4096, 23.6% + 23.3% of the prefill): both shapes tuned on the
#     DEQUANT_STAGE=2 path for the same time from table.json's winners.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
rm -f /tmp/a.db* /tmp/g.db*
start=$(date +%s)
vktune attention_prefill --device 0 -s 512,32,8,128,512 --only MMA=1 --strategy exhaustive --exhaustive \
  --seed 42 --time 170s --top 200 --db /tmp/a.db < /dev/null > "$OUT/attention_exhaustive.txt" 2> "$OUT/attention_exhaustive.stderr.txt"
stamp "attention_prefill exhaustive" $?
vktune export --db /tmp/a.db --format csv -o "$OUT/attention_measurements.csv" 2>> "$OUT/log.txt"
vktune import measurements/nvidia-h200/table.json --db /tmp/g.db >> "$OUT/log.txt" 2>&1
echo "import table.json exit $?" >> "$OUT/log.txt"
for shape in 512,14336,4096 512,28672,4096; do
  start=$(date +%s)
  vktune matmul_q4k --device 0 -s $shape --only DEQUANT_STAGE=2 --seed 42 --time 110s --top 10 --db /tmp/g.db \
    < /dev/null > "$OUT/tune_q4k_$shape.txt" 2> "$OUT/tune_q4k_$shape.stderr.txt"
  stamp "matmul_q4k $shape" $?
done
