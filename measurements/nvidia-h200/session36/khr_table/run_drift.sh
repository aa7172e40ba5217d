#!/bin/bash
# Session 36, issue 42 item 6: the H200 table with call 1's KHR re-tuned
# winners (freshest.py), imported into an empty database on an H200 that
# tuned none of it, and every winner timed against its stored time
# (`vktune bench --max-drift 10`): first the tensor-core and quantized
# products, then every other kernel of the table.
set -u
source measurements/device_env.sh
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import table exit $?" >> "$OUT/log.txt"
timeout 240 vktune bench matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 --device 0 --db /tmp/b.db \
  --max-drift 10 > "$OUT/bench_products.txt" 2> "$OUT/bench_products.stderr.txt"
echo "bench products --max-drift 10 exit $?" >> "$OUT/log.txt"
timeout 240 vktune bench matmul_f32 attention_decode add argmax gelu_erf gelu_tanh get_rows_f16 get_rows_q4k \
  get_rows_q8_0 layernorm rmsnorm rmsnorm_mul rope rope_f16 rope_neox rope_neox_f16 softmax softmax_causal swiglu \
  --device 0 --db /tmp/b.db --max-drift 10 > "$OUT/bench_rest.txt" 2> "$OUT/bench_rest.stderr.txt"
echo "bench the rest --max-drift 10 exit $?" >> "$OUT/log.txt"
