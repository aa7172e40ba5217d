#!/bin/bash
# Session 49, call 1 (issue 41 item 2): each block's residual add and the
# next norm in its last product (the _resnorm kernels: attn_output, and
# ffn_down after its SwiGLU; the workgroup that finishes last writes the
# norm). The committed table imported; the three _resnorm kernels tuned at
# Llama-3-8B's shapes; then `vktune step --tuned` at context 128 with them
# (the default) and with --norm-apart-from-block-end (the add_rmsnorm_mul
# chain the table served before), alternating, and once each at 4096; the
# database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
make_llama
for spec in matmul_q4k_resnorm:1,4096,4096 matmul_q4k_swiglu_resnorm:1,4096,14336 \
            matmul_q6k_swiglu_resnorm:1,4096,14336; do
  kernel=${spec%%:*}; shape=${spec#*:}
  run "tune $kernel $shape" timeout 100 vktune $kernel --device 0 --shape $shape --time 55s --db /tmp/t.db \
    --seed 5 > "$OUT/tune_${kernel}_$shape.txt" 2>> "$OUT/log.txt"
done
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step resnorm 128; step apart 128 --norm-apart-from-block-end
done
step resnorm 4096; step apart 4096 --norm-apart-from-block-end
vktune export --db /tmp/t.db -o "$OUT/table_resnorm.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_resnorm.json"
