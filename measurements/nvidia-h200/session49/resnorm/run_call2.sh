#!/bin/bash
# Session 49, call 2 (issue 41 item 2): the _resnorm tail held in registers.
# Call 1's exported database (the committed table and the three _resnorm
# winners) imported; `vktune step --tuned` at context 128 alternating the
# built-in templates (the tail that holds a row's values between its sum of
# squares and its stores, the norm weights loaded before the election), a
# copy with call 1's tail (.ab/templates: include/residual_norm.glsl as
# call 1 ran it) and --norm-apart-from-block-end; once each at 4096. Then
# the _resnorm kernels tuned at Qwen3-8B's and Qwen2.5-7B's shapes (Mistral's
# are Llama's), and the database exported.
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/t.db*
xz -dc measurements/nvidia-h200/session49/resnorm/call1/table_resnorm.json.xz > /tmp/call1_table.json
vktune import /tmp/call1_table.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1; echo "import /tmp/t.db exit $?" >> "$OUT/log.txt"
make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step held 128; step call1tail 128 --templates .ab/templates; step apart 128 --norm-apart-from-block-end
done
step held 4096; step apart 4096 --norm-apart-from-block-end
for spec in matmul_q4k_swiglu_resnorm:1,4096,12288 matmul_q6k_swiglu_resnorm:1,4096,12288 \
            matmul_q4k_resnorm:1,3584,3584 matmul_q4k_swiglu_resnorm:1,3584,18944 \
            matmul_q6k_swiglu_resnorm:1,3584,18944; do
  kernel=${spec%%:*}; shape=${spec#*:}
  run "tune $kernel $shape" timeout 60 vktune $kernel --device 0 --shape $shape --time 28s --db /tmp/t.db \
    --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
vktune export --db /tmp/t.db -o "$OUT/table_resnorm.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_resnorm.json"
