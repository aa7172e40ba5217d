#!/bin/bash
# Session 23, fourth call (the session's last device time): Llama-3-8B's
# table for a decode step at context 8192 and a 512-token prefill. The
# ctx-4096 table is imported first (the decode products are the same
# shapes), then a 200-s `vktune model --context 8192 --prompt 512` tunes the
# rest (attention and the cache ops at 8192, the prefill's products at
# M = 512, causal prompt attention); one export holds both phases.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune import $t/llama3-8b_q4km_decode_ctx4096.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1
( time vktune model /tmp/llama3-8b.gguf --device 0 --time 200s --context 8192 --prompt 512 --db /tmp/t.db --seed 5 ) \
  > "$OUT/model_ctx8192_prompt512.txt" 2> "$OUT/model_ctx8192_prompt512.stderr.txt"
echo "model exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/t.db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --db /tmp/t.db --seed 3 \
  > "$OUT/step_ctx8192.txt" 2>> "$OUT/log.txt"
echo "step ctx 8192 exit $?" >> "$OUT/log.txt"
