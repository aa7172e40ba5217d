#!/bin/bash
# Session 48, call 3. (1) Issue 42 item 6's check of the committed table
# with call 1's split-row argmax winners, on a third H200: imported alone,
# `vktune bench argmax --max-drift 10`. (2) Issue 41 item 2, a ladder arm
# for Q6_K's products: `vktune step --templates .ab/templates`, a copy of
# the templates whose matvec_q6k_q8.comp reads every super-block as if it
# began on a 16-byte boundary (no realignment, fewer loads; wrong numbers,
# the time an aligned layout would allow), alternating with the built-in
# templates, three times each at context 128.
set -u
source measurements/device_env.sh
start_call
db=/tmp/t.db; import_table $db
run "bench argmax --max-drift 10" vktune bench argmax --device 0 --db $db --max-drift 10 > "$OUT/bench_argmax.txt" 2>> "$OUT/log.txt"
make_llama
for round in 1 2 3; do
  run "step built-in ctx 128" timeout 90 vktune step /tmp/l.gguf --device 0 --context 128 --db $db --seed 3 --tuned \
    >> "$OUT/step_builtin_ctx128.txt" 2>> "$OUT/log.txt"
  run "step aligned-q6k ctx 128" timeout 90 vktune step /tmp/l.gguf --device 0 --context 128 --db $db --seed 3 --tuned \
    --templates .ab/templates >> "$OUT/step_aligned_q6k_ctx128.txt" 2>> "$OUT/log.txt"
done
