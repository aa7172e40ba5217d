#!/bin/bash
# Session 41, call 4: MobileNet V2's chain on an H200 that tuned none of it:
# call 3's exported winners (call3/mobilenet_table.json) imported into an
# empty database, then the chain at batch 1 and batch 8, checked, and at
# batch 1 on every layer's baseline. No tuning.
set -u
source measurements/device_env.sh
db=/tmp/mn.db
vktune import --db $db measurements/nvidia-h200/session41/call3/mobilenet_table.json > "$OUT/import.txt" 2>&1
for batch in 1 8; do
  vktune mobilenet --device 0 --db $db --batch $batch --samples 31 --check > "$OUT/chain_b$batch.txt" 2>&1
  echo "== exit $?" >> "$OUT/chain_b$batch.txt"
done
vktune mobilenet --device 0 --db $db --batch 1 --samples 31 --baseline > "$OUT/chain_b1_baseline.txt" 2>&1
echo "== exit $?" >> "$OUT/chain_b1_baseline.txt"
