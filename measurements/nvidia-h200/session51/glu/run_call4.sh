#!/bin/bash
# Session 51, call 4 (issue 41 item 2), on another GPU than call 3: the
# committed table (call 3's three _glu-way winners added) imported alone;
# `vktune bench --max-drift 10` of those three kernels' winners; then `vktune step --tuned`
# of Llama-3-8B, the glu way (the default) against --swiglu-in-down,
# alternating, at context 128 (twice each) and 4096 (once each).
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for kernel in matmul_q4k_glu matmul_q4k_resnorm matmul_q6k_split_resnorm; do
  run "bench $kernel --max-drift 10" timeout 120 vktune bench $kernel --device 0 --db /tmp/t.db --max-drift 10 \
    > "$OUT/bench_$kernel.txt" 2>> "$OUT/log.txt"
done
[ -e /tmp/l.gguf ] || make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 80 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step glu 128; step swiglu_in_down 128 --swiglu-in-down
done
step glu 4096; step swiglu_in_down 4096 --swiglu-in-down
