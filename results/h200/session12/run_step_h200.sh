#!/bin/bash
# Session 12: session 11's H200 winners (carried as .dist/model.db) on an
# H200, if this call lands on one (else it stops at once): the context-128
# attention and kv-store shapes tuned first, then `vktune step` at context
# 128 with --check on the tuned chain, both chains timed with where the time
# goes, and at context 4096. Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/device_env.sh"
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: $(tail -1 "$OUT/gpu.txt")"; exit 0; }
cp .dist/model.db /tmp/model.db
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf > "$OUT/log.txt" 2>&1
vktune attention_decode --device 0 --shape 32,8,128,128 --time 30s --db /tmp/model.db --seed 4 > /tmp/tune128.txt 2>&1
vktune kv_store --device 0 --shape 1,1024,128 --time 10s --db /tmp/model.db --seed 4 >> /tmp/tune128.txt 2>&1
grep -E "winner .* vs baseline" /tmp/tune128.txt >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json > "$OUT/step128_check.json" 2>> "$OUT/log.txt"
echo "step 128 --tuned --check exit $?" >> "$OUT/log.txt"
for ctx in 128 4096; do
  vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step$ctx.txt"
done
