#!/bin/bash
# Session 50, call 2 (issue 41 items 1 and 2): call 1's exported database
# imported; the split kernels tuned at Mistral-7B's, Qwen3-8B's and
# Qwen2.5-7B's Q6_K decode shapes (every shape the committed table serves
# with a GGUF-layout Q6_K product); that database exported (the table to
# commit), then imported alone into an empty database that every step reads:
# Llama-3-8B at context 128 with the split layout and with --gguf-layouts,
# alternating, and once each at 4096.
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/t.db* /tmp/fresh.db*
xz -dc measurements/nvidia-h200/session50/q6k_split/call1/table_split.json.xz > /tmp/call1_table.json
vktune import /tmp/call1_table.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1; echo "import /tmp/t.db exit $?" >> "$OUT/log.txt"
for spec in matmul_q6k_split:1,32768,4096:15s matmul_q6k_split:1,151936,4096:25s matmul_q6k_split:1,1024,4096:15s \
            matmul_q6k_split_swiglu_resnorm:1,4096,12288:20s matmul_q6k_split_swiglu:1,4096,12288:15s \
            matmul_q6k_split_swiglu_resnorm:1,3584,18944:20s; do
  IFS=: read -r kernel shape budget <<< "$spec"
  run "tune $kernel $shape" timeout 60 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/t.db \
    --seed 7 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
vktune export --db /tmp/t.db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
vktune import "$OUT/table.json" --db /tmp/fresh.db >> "$OUT/log.txt" 2>&1; echo "import /tmp/fresh.db exit $?" >> "$OUT/log.txt"
make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/fresh.db \
    --seed 3 --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step split 128; step gguf 128 --gguf-layouts
done
step split 4096; step gguf 4096 --gguf-layouts
xz -9 "$OUT/table.json"
