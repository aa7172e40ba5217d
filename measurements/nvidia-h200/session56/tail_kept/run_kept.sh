#!/bin/bash
# Session 56, call 2 (issue 41 item 2): the _resnorm products' tail loading
# y and g once where N fits, y·g kept in shared memory from the sum of
# squares to the stores (kept.patch), against the committed templates:
#   builtin  the committed templates (HEAD of main, 9aaed76)
#   kept     builtin with kept.patch
# The tiny model checked first (kept, baselines); then the committed table
# imported alone, Llama-3-8B at context 128 alternating twice, then 4096
# once each; then, while the call has time, kept's Llama-3-8B --check on
# the table's winners.
set -u
source measurements/device_env.sh
start_call
call_start=$(date +%s)
A=measurements/nvidia-h200/session56/tail_kept/arms
import_table /tmp/t.db
run "gguf tiny" vktune gguf --make-random tiny Q4_K_M -o /tmp/tiny.gguf --seed 5 >> "$OUT/log.txt" 2>&1
run "step tiny kept --check" timeout 60 vktune step /tmp/tiny.gguf --device 0 --context 64 --check \
  --templates $A/kept --db /tmp/e.db > "$OUT/check_tiny_kept.txt" 2>> "$OUT/log.txt"
[ -e /tmp/l.gguf ] || make_llama
step() {  # arm context
  run "step $1 ctx $2" timeout 80 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/t.db --seed 3 \
    --tuned --templates $A/$1 >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  for arm in builtin kept; do step $arm 128; done
done
for arm in builtin kept; do step $arm 4096; done
if [ $(( $(date +%s) - call_start )) -lt 330 ]; then
  run "step kept ctx 128 --check" timeout 220 vktune step /tmp/l.gguf --device 0 --context 128 --db /tmp/t.db --seed 3 \
    --tuned --check --templates $A/kept > "$OUT/check_llama_kept.txt" 2>> "$OUT/log.txt"
fi
