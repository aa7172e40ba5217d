#!/bin/bash
# Call 7 (run in session 53; session 52 ran it too, its results lost) (issue 41 items 1 and 2): the committed table, with
# call 6's Qwen winners added, imported alone on a GPU that tuned none of it:
# `vktune bench --max-drift 10` of the glu way's three kernels (every shape
# the table holds), then Qwen3-8B's and Qwen2.5-7B's steps at context 128,
# the glu way against --swiglu-in-down, alternating.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for kernel in matmul_q4k_glu matmul_q4k_resnorm matmul_q6k_split_resnorm; do
  run "bench $kernel --max-drift 10" timeout 120 vktune bench $kernel --device 0 --db /tmp/t.db --max-drift 10 \
    > "$OUT/bench_$kernel.txt" 2>> "$OUT/log.txt"
done
for preset in qwen3-8b qwen2.5-7b; do
  run "gguf --make-random $preset" vktune gguf --make-random $preset Q4_K_M -o /tmp/$preset.gguf >> "$OUT/log.txt" 2>&1
  step() {  # label [flags]
    local label=$1; shift
    run "step $preset $label ctx 128" timeout 80 vktune step /tmp/$preset.gguf --device 0 --context 128 --db /tmp/t.db \
      --seed 3 --tuned "$@" >> "$OUT/step_${preset}_${label}_ctx128.txt" 2>> "$OUT/log.txt"
  }
  step glu; step swiglu_in_down --swiglu-in-down; step glu; step swiglu_in_down --swiglu-in-down
  rm -f /tmp/$preset.gguf
done
