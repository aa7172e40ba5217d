#!/bin/bash
# Session 34, issue 42 items 4 and 6, on an H200 that tuned none of it: the
# re-tuned H200 table (measurements/nvidia-h200/table.json, freshest.py
# over call 3's export) imported into an empty database and every winner
# benchmarked against its stored time (`vktune bench --max-drift 10`); then
# this session's Llama-3-8B table (call 2's export) imported alone and
# `vktune step --prompt 512` run from it with no tuning.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
s=measurements/nvidia-h200
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
rm -f /tmp/b.db* /tmp/p.db*
vktune import $s/table.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import table exit $?" >> "$OUT/log.txt"
timeout 200 vktune bench --device 0 --db /tmp/b.db --max-drift 10 > "$OUT/bench_table.txt" 2> "$OUT/bench_table.stderr.txt"
echo "bench --max-drift 10 exit $?" >> "$OUT/log.txt"
vktune import $s/session34/prefill/llama3-8b_q4km_ctx8192_prefill512.json --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import llama table exit $?" >> "$OUT/log.txt"
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) >> "$OUT/log.txt" 2>&1
timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
  > "$OUT/step_prompt512_ctx8192.txt" 2>> "$OUT/log.txt"
echo "step prompt 512 exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
