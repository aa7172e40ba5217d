#!/bin/bash
# Session 33, call 4 (issue 41): the default chain with the final templates
# (x rows past M skipped only by the _addnorm products' quantization, so the
# other products compile as before this session): session 23's Llama-3-8B
# context-128 table imported into an empty database, vktune step three times.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
db=/tmp/check.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune import measurements/nvidia-h200/session23/llama3-8b_q4km_decode_ctx128.json --db $db >> "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
for run in 1 2 3; do
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db $db --seed 3 --tuned \
    > "$OUT/step_ctx128_run$run.txt" 2>> "$OUT/log.txt"
  echo "step run $run exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/llama3-8b.gguf
