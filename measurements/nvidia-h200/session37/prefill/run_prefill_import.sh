#!/bin/bash
# Session 37, issue 42 item 4, third call: call 6's exported prefill table
# imported into an empty database on an H200 that tuned none of it, and the
# 512-token prefill run with no tuning (does call 6's figure reproduce?).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session37/prefill/call6/llama3-8b_q4km_ctx8192_prefill512.json
: > "$OUT/log.txt"
rm -f /tmp/p.db*
vktune import $t --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import call 6's table exit $?" >> "$OUT/log.txt"
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
echo "gguf --make-random exit $?" >> "$OUT/log.txt"
timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
  > "$OUT/step_prompt512.txt" 2>> "$OUT/log.txt"
echo "step --prompt 512 exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
