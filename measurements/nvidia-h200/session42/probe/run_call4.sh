#!/bin/bash
# Session 42, call 4 (issue 42, items 4 and 6), on an H200 that tuned none of
# it: the candidate table (table.json and call 2's export merged with
# `vktune import --newest-per-model`: table.json's 90 winners and 17 more,
# the prefill's re-tuned attention, stacked gate and up and swiglu_stacked
# among them) imported alone into an empty database; `vktune step --prompt
# 512` of Llama-3-8B Q4_K_M twice and a decode step at context 8192; then
# `vktune bench --max-drift 10` of the kernels whose winners it adds.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session42/probe/table_candidate.json.xz > /tmp/table.json
vktune import /tmp/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for i in 1 2; do
  start=$(date +%s)
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db $db --seed 3 --tuned \
    > "$OUT/step_prompt512_$i.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 ($i)" $?
done
start=$(date +%s)
timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --db $db --seed 3 --tuned \
  > "$OUT/step_decode_ctx8192.txt" 2>> "$OUT/log.txt"
stamp "step decode ctx 8192" $?
rm -f /tmp/llama3-8b.gguf
start=$(date +%s)
timeout 240 vktune bench attention_prefill swiglu_stacked matmul_q4k matmul_q6k matmul_q4k_swiglu matmul_q6k_swiglu \
  add_rmsnorm_mul kv_store rope_cache --device 0 --db $db --max-drift 10 \
  > "$OUT/bench_added.txt" 2> "$OUT/bench_added.stderr.txt"
stamp "bench --max-drift 10" $?
