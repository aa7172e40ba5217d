#!/bin/bash
# Session 12, when the device call lands on an H100 (no stored winners of
# its model): `vktune model` tunes the Llama-3-8B Q4_K_M decode step there
# for 4 minutes, seeded by session 11's H200 database (carried as
# .dist/model.db: transfer seeds), then `vktune step --check` runs the tuned
# chain op by op and times it at context 128, and the baseline chain beside
# it. Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/device_env.sh"
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
( time vktune model /tmp/llama3-8b.gguf --device 0 --time 4m --context 128 --prompt 0 --seed 12 --db /tmp/model.db --json > "$OUT/model.json" ) 2>> "$OUT/log.txt"
echo "model exit $?" >> "$OUT/log.txt"
( time vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json > "$OUT/step128_tuned_check.json" ) 2>> "$OUT/log.txt"
echo "step tuned --check exit $?" >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --baseline --db /tmp/model.db --seed 3 >> "$OUT/log.txt" 2>&1
