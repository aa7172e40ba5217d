#!/bin/bash
# Session 50, call 1 (issue 41 item 2): Q6_K's split layout (every block's
# 208 bytes of codes and scales 16-byte aligned, the d values after them;
# the matmul_q6k_split kernels). The committed table imported; the split
# kernels tuned at Llama-3-8B's decode shapes (the head, v with its cache
# store at the three contexts, ffn_down after its SwiGLU with and without
# the residual norm); then `vktune step --tuned` at context 128 with them
# (the default, where the stored winners say they pay) and with
# --gguf-layouts (the chain the table served before), alternating, and once
# each at 4096; the database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for spec in matmul_q6k_split:1,128256,4096:30s matmul_q6k_split_swiglu_resnorm:1,4096,14336:30s \
            matmul_q6k_split_cache:1,1024,4096,128:15s matmul_q6k_split_cache:1,1024,4096,4096:15s \
            matmul_q6k_split_cache:1,1024,4096,8192:15s matmul_q6k_split_swiglu:1,4096,14336:20s; do
  IFS=: read -r kernel shape budget <<< "$spec"
  run "tune $kernel $shape" timeout 70 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/t.db \
    --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step split 128; step gguf 128 --gguf-layouts
done
step split 4096; step gguf 4096 --gguf-layouts
vktune export --db /tmp/t.db -o "$OUT/table_split.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_split.json"
