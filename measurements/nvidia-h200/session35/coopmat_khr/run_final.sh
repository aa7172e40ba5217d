#!/bin/bash
# Session 35, issue 43: the final code, whose default (--coopmat auto) takes
# VK_KHR_cooperative_matrix on the H200. `vktune devices`; `vktune check`
# of every kernel with a tensor-core path (covering arrays at the check
# shapes and the committed table's winners) with the default; and the
# Llama-3-8B decode step at context 128 from session 23's shipped table,
# default and --coopmat nv, to show decode unchanged.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune devices > "$OUT/devices.txt" 2>&1
start=$(date +%s)
timeout 200 vktune check matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 matmul_q4_0_f16 \
  matmul_q4k_f16 matmul_q8_0_f16 attention_decode attention_prefill --device 0 --seed 36 \
  --table measurements/nvidia-h200/table.json > "$OUT/check_default.txt" 2> "$OUT/check_default.stderr.txt"
stamp "check (default: KHR)" $?
rm -f /tmp/d.db*
vktune import measurements/nvidia-h200/session23/llama3-8b_q4km_decode_ctx128.json --db /tmp/d.db >> "$OUT/log.txt" 2>&1
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for mode in auto nv; do
  start=$(date +%s)
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/d.db --seed 3 --tuned \
    --coopmat $mode > "$OUT/step_decode_ctx128_$mode.txt" 2>> "$OUT/log.txt"
  stamp "step decode ctx 128 --coopmat $mode" $?
done
rm -f /tmp/llama3-8b.gguf
