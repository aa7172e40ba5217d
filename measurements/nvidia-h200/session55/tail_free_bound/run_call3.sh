#!/bin/bash
# Session 55, call 3 (issue 41 item 2): call 2's tailfree arm cost its readers
# about 2.2 us on every gate+up product. Whether loading the 512 partial sums
# at the end of the walk (no register held across it) costs less, each as a
# wrong-number arm passed to `vktune step --templates`, alternating:
#   builtin        the committed templates (HEAD of main, 3b154f8)
#   no_tail        session 54's: the _resnorm products without election or norm
#   tailfree       call 2's (its scale now from the absolute sum: no NaN)
#   tailfree_late  tailfree with the readers' partial sums loaded after the walk
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
  for arm in builtin no_tail tailfree tailfree_late; do step $arm 128; done
done
for arm in builtin no_tail tailfree tailfree_late; do step $arm 4096; done
