#!/bin/bash
# Session 55, call 2 (issue 41 item 2): what the two ways of leaving the
# norm's scale to the products that read xn would cost, each as a
# wrong-number arm (its work done, its numbers not right) passed to
# `vktune step --templates`, alternating on one GPU, database and model:
#   builtin       the committed templates (HEAD of main, 3b154f8)
#   no_tail       session 54's: the _resnorm products without election or norm
#   tailfree      no_tail, and each _resnorm workgroup also stores (y+r)·g
#                 for its rows and the sums of squares of 8-row groups; every
#                 other integer-dot product (the readers) loads 512 partial
#                 sums at its start, sums them through its subgroups and the
#                 barrier it already has, and scales its outputs
#   scale_reader  the _resnorm workgroups store (y+r)·g for their rows; the
#                 last one sums the squares of y and writes one scale (no
#                 norm pass); the readers load one scale and apply it
# Context 128 twice each, 4096 once each; the committed table imported alone.
# The arms' directories were made before the call (and removed after it):
# builtin = `git archive 3b154f8 templates`, the others builtin with their
# patches here applied.
set -u
source measurements/device_env.sh
start_call
A=measurements/nvidia-h200/session55/tail_free_bound/arms
import_table /tmp/t.db
[ -e /tmp/l.gguf ] || make_llama
step() {  # arm context
  run "step $1 ctx $2" timeout 80 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/t.db --seed 3 \
    --tuned --templates $A/$1 >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  for arm in builtin no_tail tailfree scale_reader; do step $arm 128; done
done
for arm in builtin no_tail tailfree scale_reader; do step $arm 4096; done
