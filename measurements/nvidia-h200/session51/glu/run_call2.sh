#!/bin/bash
# Session 51, call 2 (issue 41 item 2), on the H100 that call 1 landed on
# (a call for an H200 may get an H100, and the H200 table's winners serve
# no other GPU model): a new user's decode tune of Llama-3-8B on an empty
# database, which tunes gate and up as the _glu product and ffn_down as
# the plain-x _resnorm products; then the other way's three products
# (the stacked gate and up, the SwiGLU-reading ffn_down with the residual
# norm, Q4_K and Q6_K split) tuned at the same budget; then `vktune step
# --tuned` at context 128 with the glu way (the default, where the stored
# winners say it pays) and with --swiglu-in-down, alternating.
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/h.db*
[ -e /tmp/l.gguf ] || make_llama
run "model --time 4m" timeout 300 vktune model /tmp/l.gguf --device 0 --time 4m --context 128 --prompt 0 \
  --db /tmp/h.db --seed 5 > "$OUT/model.txt" 2>> "$OUT/log.txt"
for spec in matmul_q4k:1,28672,4096:40s matmul_q4k_swiglu_resnorm:1,4096,14336:30s \
            matmul_q6k_split_swiglu_resnorm:1,4096,14336:30s; do
  IFS=: read -r kernel shape budget <<< "$spec"
  run "tune $kernel $shape" timeout 90 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/h.db \
    --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/h.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2 3; do
  step glu 128; step swiglu_in_down 128 --swiglu-in-down
done
vktune export --db /tmp/h.db -o "$OUT/table_h100.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_h100.json"
