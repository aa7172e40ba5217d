#!/bin/bash
# Session 54, call 1 (issue 41 item 2): the _resnorm products' tail (the
# last workgroup's residual norm, include/residual_norm.glsl) as a ladder,
# each arm a copy of the templates passed to `vktune step --templates`:
#   builtin        the committed templates (HEAD of main)
#   one_read       y and g read once into registers, kept from the sum of
#                  squares to the stores (rows up to NORM_BATCH*WG_SIZE)
#   election_only  the last workgroup elected, no norm (wrong numbers)
#   no_tail        no election, no norm (wrong numbers): the tail's bound
# one_read checked against the CPU chain first (tiny model, then
# Llama-3-8B); then the committed table imported alone, Llama-3-8B at
# context 128 with the arms alternating twice, and builtin/one_read at 4096.
set -u
source measurements/device_env.sh
start_call
# The arms' directories were made before the call (and removed after it):
# builtin = `git archive 2c44fa7 templates`, the others builtin with their
# patch here applied.
A=measurements/nvidia-h200/session54/tail/arms
import_table /tmp/t.db
run "gguf tiny" vktune gguf --make-random tiny Q4_K_M -o /tmp/tiny.gguf --seed 5 >> "$OUT/log.txt" 2>&1
run "step tiny one_read --check" timeout 120 vktune step /tmp/tiny.gguf --device 0 --context 64 --check \
  --templates $A/one_read --db /tmp/e.db > "$OUT/check_tiny_one_read.txt" 2>> "$OUT/log.txt"
[ -e /tmp/l.gguf ] || make_llama
run "step llama one_read --check ctx 128" timeout 240 vktune step /tmp/l.gguf --device 0 --context 128 --db /tmp/t.db \
  --seed 3 --tuned --check --templates $A/one_read > "$OUT/check_llama_one_read.txt" 2>> "$OUT/log.txt"
step() {  # arm context
  run "step $1 ctx $2" timeout 80 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/t.db --seed 3 \
    --tuned --templates $A/$1 >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  for arm in builtin one_read election_only no_tail; do step $arm 128; done
done
step builtin 4096; step one_read 4096
