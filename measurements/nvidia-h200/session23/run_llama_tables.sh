#!/bin/bash
# Session 23, first call: the decode tables of Llama-3-8B Q4_K_M (random
# weights) at contexts 128 and 4096 from an empty database, as a new user
# would make them (`vktune model`, then `vktune export --model`), and the
# step each gives on the same GPU. Outputs under $OUT, packed by the caller.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
db=/tmp/tables.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for job in "128 270s" "4096 90s"; do
  set -- $job
  ( time vktune model /tmp/llama3-8b.gguf --device 0 --time "$2" --context "$1" --prompt 0 --db $db --seed 5 ) \
    > "$OUT/model_ctx$1.txt" 2> "$OUT/model_ctx$1.stderr.txt"
  echo "model ctx $1 exit $?" >> "$OUT/log.txt"
  vktune export --db $db --model /tmp/llama3-8b.gguf --context "$1" --prompt 0 \
    -o "$OUT/llama3-8b_q4km_decode_ctx$1.json" 2>> "$OUT/log.txt"
  echo "export ctx $1 exit $?" >> "$OUT/log.txt"
  timeout 120 vktune step /tmp/llama3-8b.gguf --device 0 --context "$1" --db $db --seed 3 \
    > "$OUT/step_ctx$1.txt" 2>> "$OUT/log.txt"
  echo "step ctx $1 exit $?" >> "$OUT/log.txt"
done
