#!/bin/bash
# Session 49, call 3 (issue 41 items 1 and 2): the final templates (call 1's
# tail). Call 2's exported database imported; the _resnorm kernels re-tuned
# at Qwen3-8B's and Qwen2.5-7B's shapes with these templates (call 2 tuned
# them with the tail it tried and dropped); that database exported as the
# table to commit, which is then imported alone into a fresh database that
# every step reads: Llama-3-8B at context 128 (twice) and 4096, with the
# _resnorm products (the default) and with --norm-apart-from-block-end, and
# Qwen3-8B at 128 both ways.
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/t.db* /tmp/fresh.db*
xz -dc measurements/nvidia-h200/session49/resnorm/call2/table_resnorm.json.xz > /tmp/call2_table.json
vktune import /tmp/call2_table.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1; echo "import /tmp/t.db exit $?" >> "$OUT/log.txt"
for spec in matmul_q4k_swiglu_resnorm:1,4096,12288 matmul_q6k_swiglu_resnorm:1,4096,12288 \
            matmul_q4k_resnorm:1,3584,3584 matmul_q4k_swiglu_resnorm:1,3584,18944 \
            matmul_q6k_swiglu_resnorm:1,3584,18944; do
  kernel=${spec%%:*}; shape=${spec#*:}
  run "tune $kernel $shape" timeout 60 vktune $kernel --device 0 --shape $shape --time 25s --db /tmp/t.db \
    --seed 7 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
vktune export --db /tmp/t.db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
vktune import "$OUT/table.json" --db /tmp/fresh.db >> "$OUT/log.txt" 2>&1; echo "import /tmp/fresh.db exit $?" >> "$OUT/log.txt"
make_llama
run "gguf --make-random qwen3-8b" vktune gguf --make-random qwen3-8b Q4_K_M -o /tmp/q.gguf >> "$OUT/log.txt" 2>&1
step() {  # model label context [flags]
  local model=$1 label=$2 ctx=$3; shift 3
  run "step $model $label ctx $ctx" timeout 90 vktune step /tmp/$model.gguf --device 0 --context $ctx \
    --db /tmp/fresh.db --seed 3 --tuned "$@" >> "$OUT/step_${model}_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step l resnorm 128; step l apart 128 --norm-apart-from-block-end
done
step l resnorm 4096; step l apart 4096 --norm-apart-from-block-end
step q resnorm 128; step q apart 128 --norm-apart-from-block-end
xz -9 "$OUT/table.json"
