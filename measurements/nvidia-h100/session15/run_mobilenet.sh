#!/bin/bash
# Session 15: MobileNet V2's chain on this GPU (issue 21, item 4). Tunes the
# three convolution specs at their default shapes (MobileNet V2's layers at
# batch 1, 224x224; SECONDS each, seed 15) into a fresh database, then runs
# `vktune mobilenet` with those winners and with the baselines, checked
# against the CPU chain.
set -u
source measurements/device_env.sh
db=/tmp/mobilenet.db
for spec in examples/mobilenet_stem/stem.json examples/mobilenet_depthwise/depthwise.json examples/mobilenet_pointwise/pointwise.json; do
  name=$(basename "$spec" .json)
  vktune "$spec" --device 0 --time ${SECONDS_EACH:-60}s --seed 15 --top 1 --db $db > "$OUT/tune_$name.txt" 2>&1
  echo "== $name tune exit $?" >> "$OUT/mobilenet.txt"
done
vktune mobilenet --device 0 --db $db --check > "$OUT/chain_tuned.txt" 2>&1; echo "== chain tuned exit $?" >> "$OUT/mobilenet.txt"
vktune mobilenet --device 0 --db $db --check --json > "$OUT/chain_tuned.json" 2>/dev/null
vktune mobilenet --device 0 --db $db --baseline --check > "$OUT/chain_baseline.txt" 2>&1; echo "== chain baseline exit $?" >> "$OUT/mobilenet.txt"
tail -8 "$OUT/chain_tuned.txt" "$OUT/chain_baseline.txt" >> "$OUT/mobilenet.txt"
