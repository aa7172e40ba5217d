#!/bin/bash
# Session 51, call 6 (issue 41 item 1): the glu way's three products tuned
# at Qwen3-8B's and Qwen2.5-7B's decode shapes, so that the committed table
# serves every op `vktune model` lists for them; then Qwen3-8B's step at
# context 128, the glu way against --swiglu-in-down; the database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for spec in matmul_q4k_glu:1,24576,4096:20s matmul_q4k_resnorm:1,4096,12288:20s \
            matmul_q6k_split_resnorm:1,4096,12288:20s matmul_q4k_glu:1,37888,3584:20s \
            matmul_q4k_resnorm:1,3584,18944:20s matmul_q6k_split_resnorm:1,3584,18944:20s; do
  IFS=: read -r kernel shape budget <<< "$spec"
  run "tune $kernel $shape" timeout 60 vktune $kernel --device 0 --shape $shape --time $budget --db /tmp/t.db \
    --seed 5 > "$OUT/tune_${kernel}_${shape//,/_}.txt" 2>> "$OUT/log.txt"
done
run "gguf --make-random qwen3-8b" vktune gguf --make-random qwen3-8b Q4_K_M -o /tmp/q.gguf >> "$OUT/log.txt" 2>&1
step() {  # label [flags]
  local label=$1; shift
  run "step qwen3 $label ctx 128" timeout 80 vktune step /tmp/q.gguf --device 0 --context 128 --db /tmp/t.db \
    --seed 3 --tuned "$@" >> "$OUT/step_qwen3_${label}_ctx128.txt" 2>> "$OUT/log.txt"
}
step glu; step swiglu_in_down --swiglu-in-down
vktune export --db /tmp/t.db -o "$OUT/table_qwen.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_qwen.json"
