#!/bin/bash
# Session 51, call 3 (issue 41 item 2), on another GPU than calls 1 and 2:
# call 2's exported table (an H100's decode tune of Llama-3-8B at context
# 128, both ways of the feed-forward block tuned) imported alone where this
# GPU is an H100; the committed H200 table where it is an H200, with the
# three _glu-way products tuned as in call 1. Then `vktune step --tuned`,
# the glu way (the default) against --swiglu-in-down, alternating, at
# context 128 (twice each) and 4096 (once each).
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/r.db*
if grep -q H100 "$OUT/gpu.txt"; then
  xz -dc measurements/nvidia-h200/session51/glu/call2/table_h100.json.xz > /tmp/table_h100.json
  vktune import /tmp/table_h100.json --db /tmp/r.db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
else
  import_table /tmp/r.db
  for spec in matmul_q4k_glu:1,28672,4096:40s matmul_q6k_split_resnorm:1,4096,14336:30s \
              matmul_q4k_resnorm:1,4096,14336:30s; do
    IFS=: read -r kernel shape budget <<< "$spec"
    run "tune $kernel $shape" timeout 90 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/r.db \
      --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
  done
fi
[ -e /tmp/l.gguf ] || make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/r.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step glu 128; step swiglu_in_down 128 --swiglu-in-down
done
step glu 4096; step swiglu_in_down 4096 --swiglu-in-down
if ! grep -q H100 "$OUT/gpu.txt"; then
  vktune export --db /tmp/r.db -o "$OUT/table_glu.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
  xz -9 "$OUT/table_glu.json"
fi
