#!/bin/bash
# Session 34, issue 42 item 6: the re-tuned H200 table's quantized products
# on an H200 that tuned none of them: imported into an empty database, each
# winner timed against its stored time (`vktune bench --max-drift 10`).
set -u
source measurements/device_env.sh
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import table exit $?" >> "$OUT/log.txt"
timeout 150 vktune bench matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 --device 0 --db /tmp/b.db \
  --max-drift 10 > "$OUT/bench_quantized.txt" 2> "$OUT/bench_quantized.stderr.txt"
echo "bench --max-drift 10 exit $?" >> "$OUT/log.txt"
