#!/bin/bash
# Session 12 on an H200: `vktune step` on a random-weight Llama-3-8B Q4_K_M
# with barriers only where ops meet, and --check op by op. The winners are
# session 11's model database (carried as .dist/model.db, tuned on other
# H200s); the context-128 attention and kv-store shapes are tuned first (the
# model run tuned context 4096). Run from the repository root with .dist and
# .gl carried.
set -u
source "$(dirname "$0")/device_env.sh"
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune attention_decode --device 0 --shape 32,8,128,128 --time 30s --db /tmp/model.db --seed 4 > /tmp/tune128.txt 2>&1
vktune kv_store --device 0 --shape 1,1024,128 --time 10s --db /tmp/model.db --seed 4 >> /tmp/tune128.txt 2>&1
grep -E "winner|speedup" /tmp/tune128.txt >> "$OUT/log.txt"
( time vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --check --db /tmp/model.db --seed 3 --json > "$OUT/step128_check.json" ) 2>> "$OUT/log.txt"
echo "step context 128 --check exit $?" >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --db /tmp/model.db --seed 3 >> "$OUT/log.txt" 2>&1
echo "step context 4096 exit $?" >> "$OUT/log.txt"
