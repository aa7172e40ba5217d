#!/bin/bash
# Session 23, second call, on another H200: the committed Llama-3-8B tables
# imported into empty databases and `vktune step` with no tuning (what a user
# who imports the shipped table gets); then Mistral-7B's decode table: the
# ctx-128 Llama table imported first (Mistral-7B's layers have Llama-3-8B's
# shapes; its vocabulary, 32768, makes the head, lookup and argmax new), and
# a 60-s `vktune model` tunes what is new.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for ctx in 128 4096; do
  vktune import $t/llama3-8b_q4km_decode_ctx$ctx.json --db /tmp/import$ctx.db >> "$OUT/log.txt" 2>&1
  echo "import ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 120 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db /tmp/import$ctx.db --seed 3 \
    > "$OUT/imported_step_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step ctx $ctx exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/llama3-8b.gguf
( time vktune gguf --make-random mistral-7b Q4_K_M -o /tmp/mistral-7b.gguf ) >> "$OUT/log.txt" 2>&1
cp /tmp/import128.db /tmp/mistral.db
( time vktune model /tmp/mistral-7b.gguf --device 0 --time 60s --context 128 --prompt 0 --db /tmp/mistral.db --seed 5 ) \
  > "$OUT/mistral_model_ctx128.txt" 2> "$OUT/mistral_model_ctx128.stderr.txt"
echo "mistral model exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/mistral.db --model /tmp/mistral-7b.gguf --context 128 --prompt 0 \
  -o "$OUT/mistral-7b_q4km_decode_ctx128.json" 2>> "$OUT/log.txt"
echo "mistral export exit $?" >> "$OUT/log.txt"
timeout 120 vktune step /tmp/mistral-7b.gguf --device 0 --context 128 --db /tmp/mistral.db --seed 3 \
  > "$OUT/mistral_step_ctx128.txt" 2>> "$OUT/log.txt"
echo "mistral step exit $?" >> "$OUT/log.txt"
