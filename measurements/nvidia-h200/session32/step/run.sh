#!/bin/bash
# Session 32: what a user who imports session 23's shipped Llama-3-8B decode
# tables gets today (vktune at 9dfcfef): each table imported into an empty
# database, then `vktune step` with no tuning, contexts 128 and 4096, on an
# H200 that tuned neither (the commands of session 23's second call).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for ctx in 128 4096; do
  rm -f /tmp/import$ctx.db*
  vktune import $t/llama3-8b_q4km_decode_ctx$ctx.json --db /tmp/import$ctx.db >> "$OUT/log.txt" 2>&1
  echo "import ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 120 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db /tmp/import$ctx.db --seed 3 \
    > "$OUT/imported_step_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step ctx $ctx exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/llama3-8b.gguf
