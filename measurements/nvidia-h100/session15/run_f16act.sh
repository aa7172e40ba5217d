#!/bin/bash
# Session 15: the quantized products with fp16 activations on this GPU:
# every covering variant of the fp16 kernels and of the fp32 siblings whose
# templates they now share (tensor-core paths included, which lavapipe
# cannot run), at the check shapes and at the default shapes; then short
# tunes of fp16 and fp32 at one decode and one prefill shape.
set -u
source measurements/device_env.sh
( time vktune check matmul_q4_0_f16 matmul_q8_0_f16 matmul_q4k_f16 matmul_q4_0 matmul_q8_0 matmul_q4k matmul_f16 \
    --device 0 --variants covering --shapes ${CHECK_SHAPES:-default} ) > "$OUT/check.txt" 2>&1
grep -E "FAIL" "$OUT/check.txt" | head -20 > "$OUT/check_failures.txt"
tail -3 "$OUT/check.txt" >> "$OUT/check_failures.txt"
for k in matmul_q4k_f16 matmul_q4k matmul_q4_0_f16 matmul_q4_0; do
  for shape in 1,4096,4096 512,4096,4096; do
    vktune $k --device 0 --shape $shape --time ${SECONDS_EACH:-25}s --seed 15 --top 1 --db /tmp/f16.db > /tmp/t.txt 2>&1
    echo "$k $shape: $(grep -E 'winner .* vs' /tmp/t.txt)" >> "$OUT/tunes.txt"
  done
done
