#!/bin/bash
# Session 51, call 1 (issue 41 item 2): gate and up as one product of their
# rows interleaved that stores their SwiGLU (matmul_q4k_glu), ffn_down then
# a plain-x product with the residual norm (matmul_q4k_resnorm,
# matmul_q6k_split_resnorm) rather than computing the SwiGLU from both
# outputs in each of its workgroups. The committed table imported; the
# three kernels tuned at Llama-3-8B's decode shapes; then `vktune step
# --tuned` at context 128 with them (the default, where the stored winners
# say they pay) and with --swiglu-in-down (the chain the table served
# before), alternating, and once each at 4096; the database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for spec in matmul_q4k_glu:1,28672,4096:40s matmul_q6k_split_resnorm:1,4096,14336:30s \
            matmul_q4k_resnorm:1,4096,14336:30s; do
  IFS=: read -r kernel shape budget <<< "$spec"
  run "tune $kernel $shape" timeout 90 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/t.db \
    --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step glu 128; step swiglu_in_down 128 --swiglu-in-down
done
step glu 4096; step swiglu_in_down 4096 --swiglu-in-down
vktune export --db /tmp/t.db -o "$OUT/table_glu.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_glu.json"
