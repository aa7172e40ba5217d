#!/bin/bash
# Session 12, final: on whatever GPU this lands on, `vktune model` tunes the
# Llama-3-8B Q4_K_M decode step at context 128 for 3 minutes (seeded by
# session 11's H200 database, carried as .dist/model.db), then `vktune step`
# checks the tuned chain op by op and times both chains with where the time
# goes, at context 128 and 4096 (the 4096 attention and kv-store shapes
# untuned here). Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/device_env.sh"
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
( time vktune model /tmp/llama3-8b.gguf --device 0 --time 3m --context 128 --prompt 0 --seed 12 --db /tmp/model.db --json > "$OUT/model.json" ) 2>> "$OUT/log.txt"
echo "model exit $?" >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json > "$OUT/step128.json" 2>> "$OUT/log.txt"
echo "step 128 --check exit $?" >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step128.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step4096.txt"
