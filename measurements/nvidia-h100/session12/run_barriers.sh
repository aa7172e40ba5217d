#!/bin/bash
# Session 12: what placing barriers where ops meet saves, on one GPU in one
# call: `vktune step` at context 128 with barriers where ops meet and with a
# barrier before every dispatch, for the baselines and for winners tuned here
# by `vktune model --time 2m` (seeded by session 11's H200 database).
# Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/../../device_env.sh"
cp .dist/model.db /tmp/model.db
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf > "$OUT/log.txt" 2>&1
vktune model /tmp/llama3-8b.gguf --device 0 --time 2m --context 128 --prompt 0 --seed 13 --db /tmp/model.db > /dev/null 2>> "$OUT/log.txt"
echo "model exit $?" >> "$OUT/log.txt"
for chain in --tuned --baseline; do
  for placement in "" --barrier-every-op; do
    echo "== $chain $placement" >> "$OUT/steps.txt"
    vktune step /tmp/llama3-8b.gguf --device 0 --context 128 $chain $placement --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" | grep -v "    baseline:" >> "$OUT/steps.txt"
  done
done
