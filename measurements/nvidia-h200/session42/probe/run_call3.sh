#!/bin/bash
# Session 42, call 3 (issue 42, items 4 and 6), on an H200 that tuned none of
# it: call 2's exported prefill table imported alone into an empty
# database; `vktune step --prompt 512` of Llama-3-8B Q4_K_M twice; then
# `vktune bench --max-drift 10` of the three winners call 2 tuned
# (attention_prefill, matmul_q4k's stacked gate and up, swiglu_stacked).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/r.db; rm -f $db*
xz -dc measurements/nvidia-h200/session42/probe/call2/llama3-8b_q4km_ctx8192_prefill512.json.xz > /tmp/prefill.json
vktune import /tmp/prefill.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for i in 1 2; do
  start=$(date +%s)
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db $db --seed 3 --tuned \
    > "$OUT/step_prompt512_$i.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 ($i)" $?
done
rm -f /tmp/llama3-8b.gguf
start=$(date +%s)
timeout 150 vktune bench attention_prefill matmul_q4k swiglu_stacked --device 0 --db $db --max-drift 10 \
  > "$OUT/bench_new_winners.txt" 2> "$OUT/bench_new_winners.stderr.txt"
stamp "bench --max-drift 10" $?
