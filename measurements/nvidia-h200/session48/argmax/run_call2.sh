#!/bin/bash
# Session 48, call 2 (issue 41 items 1-2): the committed table with call 1's
# split-row argmax winners, imported alone on another H200 (which tuned none
# of it): `vktune bench --max-drift 10` of its argmax winners, then `vktune
# step --tuned` at context 128 (twice) and 4096.
set -u
source measurements/device_env.sh
start_call
db=/tmp/t.db; import_table $db
run "bench argmax --max-drift 10" vktune bench argmax --device 0 --db $db --max-drift 10 > "$OUT/bench_argmax.txt" 2>> "$OUT/log.txt"
make_llama
for ctx in 128 128 4096; do
  run "step ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db $db --seed 3 --tuned \
    >> "$OUT/step_ctx$ctx.txt" 2>> "$OUT/log.txt"
done
