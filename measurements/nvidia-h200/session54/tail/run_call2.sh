#!/bin/bash
# Session 54, call 2 (issue 41 item 2): how far the two designs left open
# would take the decode step, each as a wrong-number ladder arm passed to
# `vktune step --templates`, alternating on one GPU, database and model:
#   builtin           the committed templates (HEAD of main, 51a637e)
#   no_tail           call 1's: the _resnorm products' last workgroup neither
#                     elected nor normalising (no_tail_arm.patch)
#   prequant          session 48's arm on today's templates: every integer-dot
#                     product copying x as if it were 8-bit codes and scales
#                     made once a token (../../session48/argmax/call4/
#                     prequantized_x_arm.patch, unchanged)
#   no_tail_prequant  both
# Context 128 twice each, 4096 once each; the committed table imported alone.
# The arms' directories were made before the call (and removed after it):
# builtin = `git archive 51a637e templates`, the others builtin with their
# patches applied.
set -u
source measurements/device_env.sh
start_call
A=measurements/nvidia-h200/session54/tail/arms
import_table /tmp/t.db
[ -e /tmp/l.gguf ] || make_llama
step() {  # arm context
  run "step $1 ctx $2" timeout 80 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/t.db --seed 3 \
    --tuned --templates $A/$1 >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  for arm in builtin no_tail prequant no_tail_prequant; do step $arm 128; done
done
for arm in builtin no_tail prequant no_tail_prequant; do step $arm 4096; done
