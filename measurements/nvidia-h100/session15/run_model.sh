#!/bin/bash
# Session 15: `vktune model` on a random-weight Llama-3-8B Q4_K_M, now that
# a prefill's attention has a kernel: the first complete predicted prefill.
# Starts from the committed H200 table (imported), TIME of tuning.
set -u
source measurements/device_env.sh
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf > "$OUT/gguf.txt" 2>&1
vktune import measurements/nvidia-h200/table.json --db /tmp/model.db > "$OUT/import.txt" 2>&1
vktune model /tmp/llama3-8b.gguf --device 0 --time ${TIME:-6m} --prompt 512 --context 4096 --seed 15 --db /tmp/model.db \
  --json > "$OUT/model.json" 2> "$OUT/model.err"
echo "exit $?" >> "$OUT/model.err"
