#!/bin/bash
# Session 55, call 1 (issue 41 item 2): the _resnorm products' tail with the
# mean's sum taken from the workgroups' partial sums (each workgroup sums
# the squares of the outputs it stores and leaves the sum in xn; the last
# one reads those, one an invocation, instead of all of y), each arm a copy
# of the templates passed to `vktune step --templates`:
#   builtin       the committed templates (HEAD of main, 3b154f8)
#   partials      the change (partials.patch)
#   partials_b16  the change and the norm's loads 16 at a time where a
#                 workgroup has at most 256 invocations (one round of loads
#                 over 4,096 values; partials_b16.patch on top of partials)
# partials checked against the CPU chain first (tiny model on the
# baselines, then Llama-3-8B on the committed table's winners); then the
# committed table imported alone, Llama-3-8B at context 128 with the arms
# alternating twice, and once each at 4096.
set -u
source measurements/device_env.sh
start_call
# The arms' directories were made before the call (and removed after it):
# builtin = `git archive 3b154f8 templates`, the others builtin with their
# patches here applied.
A=measurements/nvidia-h200/session55/tail_partials/arms
import_table /tmp/t.db
run "gguf tiny" vktune gguf --make-random tiny Q4_K_M -o /tmp/tiny.gguf --seed 5 >> "$OUT/log.txt" 2>&1
run "step tiny partials --check" timeout 120 vktune step /tmp/tiny.gguf --device 0 --context 64 --check \
  --templates $A/partials --db /tmp/e.db > "$OUT/check_tiny_partials.txt" 2>> "$OUT/log.txt"
[ -e /tmp/l.gguf ] || make_llama
run "step llama partials_b16 --check ctx 128" timeout 240 vktune step /tmp/l.gguf --device 0 --context 128 \
  --db /tmp/t.db --seed 3 --tuned --check --templates $A/partials_b16 > "$OUT/check_llama_partials_b16.txt" \
  2>> "$OUT/log.txt"
step() {  # arm context
  run "step $1 ctx $2" timeout 80 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/t.db --seed 3 \
    --tuned --templates $A/$1 >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  for arm in builtin partials partials_b16; do step $arm 128; done
done
for arm in builtin partials partials_b16; do step $arm 4096; done
