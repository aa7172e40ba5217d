#!/bin/bash
# Session 34, issue 42 item 4: the first measured prefill. Session 23's
# shipped Llama-3-8B table for context 8192 with a 512-token prefill
# (llama3-8b_q4km_ctx8192_prefill512.json) imported into an empty database
# on an H200 that tuned none of it, then `vktune step --prompt 512` (tuned
# and baseline chains, 15 prompts each); and the decode step at context 128
# from its own table, to show the decode chain unchanged by this session's
# code.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
rm -f /tmp/p.db* /tmp/d.db*
vktune import $t/llama3-8b_q4km_ctx8192_prefill512.json --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import prefill table exit $?" >> "$OUT/log.txt"
timeout 240 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 \
  > "$OUT/step_prompt512_ctx8192.txt" 2>> "$OUT/log.txt"
echo "step prompt 512 exit $?" >> "$OUT/log.txt"
vktune import $t/llama3-8b_q4km_decode_ctx128.json --db /tmp/d.db >> "$OUT/log.txt" 2>&1
echo "import decode table exit $?" >> "$OUT/log.txt"
timeout 120 vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/d.db --seed 3 --tuned \
  > "$OUT/step_decode_ctx128.txt" 2>> "$OUT/log.txt"
echo "step decode ctx 128 exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
