#!/bin/bash
# Call 9 (session 53; issue 41 item 1): the 190-winner table (call 8's
# Qwen2.5-7B winners added) imported alone on a GPU that tuned none of it,
# then Qwen2.5-7B's step at context 128, twice.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
run "gguf --make-random qwen2.5-7b" vktune gguf --make-random qwen2.5-7b Q4_K_M -o /tmp/q.gguf >> "$OUT/log.txt" 2>&1
for round in 1 2; do
  run "step qwen2.5-7b glu ctx 128" timeout 80 vktune step /tmp/q.gguf --device 0 --context 128 --db /tmp/t.db \
    --seed 3 --tuned >> "$OUT/step_qwen2.5-7b_glu_ctx128.txt" 2>> "$OUT/log.txt"
done
