#!/bin/bash
# Call 8 (session 53; issue 41 item 1): call 7 found the committed table
# serving 84 of Qwen2.5-7B's 368 dispatches at context 128 (its attention
# side, biases, rope, head and embedding never tuned). The committed table
# imported, then a `vktune model` of Qwen2.5-7B at context 128 (decode only)
# in four minutes, its step twice, the database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
run "gguf --make-random qwen2.5-7b" vktune gguf --make-random qwen2.5-7b Q4_K_M -o /tmp/q.gguf >> "$OUT/log.txt" 2>&1
run "model --time 4m" timeout 300 vktune model /tmp/q.gguf --device 0 --time 4m --context 128 --prompt 0 \
  --db /tmp/t.db --seed 5 > "$OUT/model.txt" 2>> "$OUT/log.txt"
for round in 1 2; do
  run "step qwen2.5-7b glu ctx 128" timeout 80 vktune step /tmp/q.gguf --device 0 --context 128 --db /tmp/t.db \
    --seed 3 --tuned >> "$OUT/step_qwen2.5-7b_glu_ctx128.txt" 2>> "$OUT/log.txt"
done
vktune export --db /tmp/t.db -o "$OUT/table_qwen25.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_qwen25.json"
