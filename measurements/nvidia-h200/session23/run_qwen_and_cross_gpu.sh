#!/bin/bash
# Session 23, third call, on a machine started afresh (another GPU): the
# committed Llama-3-8B ctx-128 table imported into an empty database and
# `vktune step` with no tuning; then Qwen3-8B's decode table: that Llama
# table imported first (Qwen3-8B's attention products have Llama-3-8B's
# shapes; its feed-forward, 12288, its vocabulary, 151936, and its per-head
# q/k norms are new) and a 200-s `vktune model` tunes the rest.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune import $t/llama3-8b_q4km_decode_ctx128.json --db /tmp/import128.db >> "$OUT/log.txt" 2>&1
echo "import ctx 128 exit $?" >> "$OUT/log.txt"
timeout 120 vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/import128.db --seed 3 \
  > "$OUT/imported_step_ctx128.txt" 2>> "$OUT/log.txt"
echo "step ctx 128 exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
( time vktune gguf --make-random qwen3-8b Q4_K_M -o /tmp/qwen3-8b.gguf ) >> "$OUT/log.txt" 2>&1
cp /tmp/import128.db /tmp/qwen.db
( time vktune model /tmp/qwen3-8b.gguf --device 0 --time 200s --context 128 --prompt 0 --db /tmp/qwen.db --seed 5 ) \
  > "$OUT/qwen3_model_ctx128.txt" 2> "$OUT/qwen3_model_ctx128.stderr.txt"
echo "qwen3 model exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/qwen.db --model /tmp/qwen3-8b.gguf --context 128 --prompt 0 \
  -o "$OUT/qwen3-8b_q4km_decode_ctx128.json" 2>> "$OUT/log.txt"
echo "qwen3 export exit $?" >> "$OUT/log.txt"
timeout 120 vktune step /tmp/qwen3-8b.gguf --device 0 --context 128 --db /tmp/qwen.db --seed 3 \
  > "$OUT/qwen3_step_ctx128.txt" 2>> "$OUT/log.txt"
echo "qwen3 step exit $?" >> "$OUT/log.txt"
