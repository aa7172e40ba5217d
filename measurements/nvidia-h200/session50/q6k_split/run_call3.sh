#!/bin/bash
# Session 50, call 3 (issue 41 items 1 and 2; issue 42 item 6's drift
# check): the candidate table (call 2's export, deduplicated with
# `import --newest-per-model`: measurements/nvidia-h200/table.json as
# committed after this call) imported alone on a GPU that tuned none of it;
# `vktune bench --max-drift 10` of the split kernels' twelve winners; then
# `vktune step --tuned` of Llama-3-8B at context 128 with the split layout
# and with --gguf-layouts, alternating, once each at 4096, and Qwen3-8B at
# 128 both ways.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/fresh.db
for kernel in matmul_q6k_split matmul_q6k_split_cache matmul_q6k_split_swiglu matmul_q6k_split_swiglu_resnorm; do
  run "bench $kernel --max-drift 10" timeout 120 vktune bench $kernel --device 0 --db /tmp/fresh.db --max-drift 10 \
    > "$OUT/bench_$kernel.txt" 2>> "$OUT/log.txt"
done
make_llama
run "gguf --make-random qwen3-8b" vktune gguf --make-random qwen3-8b Q4_K_M -o /tmp/q.gguf >> "$OUT/log.txt" 2>&1
step() {  # model label context [flags]
  local model=$1 label=$2 ctx=$3; shift 3
  run "step $model $label ctx $ctx" timeout 80 vktune step /tmp/$model.gguf --device 0 --context $ctx \
    --db /tmp/fresh.db --seed 3 --tuned "$@" >> "$OUT/step_${model}_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step l split 128; step l gguf 128 --gguf-layouts
done
step l split 4096; step l gguf 4096 --gguf-layouts
step q split 128; step q gguf 128 --gguf-layouts
