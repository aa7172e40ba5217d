#!/bin/bash
# Session 33, call 1 (issue 41): the residual add and the norm taken into the
# products that read the norm (matmul_q4k_addnorm, matmul_q6k_addnorm). On one
# H200: session 23's Llama-3-8B tables imported (every op but the new
# kernels'), the new kernels tuned at the shapes of Llama-3-8B, Mistral-7B
# and Qwen3-8B, the Llama tables exported again with them, and vktune step at
# contexts 128 and 4096, with the new kernels and --norm-apart (one
# add_rmsnorm_mul before the products, as before: the A/B on one GPU). Outputs under $OUT.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
db=/tmp/addnorm.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for table in llama3-8b_q4km_decode_ctx128 llama3-8b_q4km_decode_ctx4096 llama3-8b_q4km_ctx8192_prefill512; do
  vktune import $t/$table.json --db $db >> "$OUT/log.txt" 2>&1
  echo "import $table exit $?" >> "$OUT/log.txt"
done
# q, k (and layer-wise v), gate+up stacked (Llama/Mistral 2x14336, Qwen3 2x12288);
# v (Q6_K layers) and the heads (Llama 128256, Mistral 32000, Qwen3 151936 rows).
( time vktune matmul_q4k_addnorm --device 0 --shape 1,4096,4096 --shape 1,1024,4096 --shape 1,28672,4096 \
    --shape 1,24576,4096 --time 120s --db $db --seed 7 ) > "$OUT/tune_q4k_addnorm.txt" 2>&1
echo "tune matmul_q4k_addnorm exit $?" >> "$OUT/log.txt"
( time vktune matmul_q6k_addnorm --device 0 --shape 1,1024,4096 --shape 1,128256,4096 --shape 1,32000,4096 \
    --shape 1,151936,4096 --time 120s --db $db --seed 7 ) > "$OUT/tune_q6k_addnorm.txt" 2>&1
echo "tune matmul_q6k_addnorm exit $?" >> "$OUT/log.txt"
vktune export --db $db -o "$OUT/all_winners.json" 2>> "$OUT/log.txt"
echo "export all exit $?" >> "$OUT/log.txt"
vktune export --db $db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export ctx 8192 prompt 512 exit $?" >> "$OUT/log.txt"
for ctx in 128 4096; do
  vktune export --db $db --model /tmp/llama3-8b.gguf --context $ctx --prompt 0 \
    -o "$OUT/llama3-8b_q4km_decode_ctx$ctx.json" 2>> "$OUT/log.txt"
  echo "export ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 150 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 \
    > "$OUT/step_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 --norm-apart --tuned \
    > "$OUT/step_norm_apart_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step --norm-apart ctx $ctx exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/llama3-8b.gguf
