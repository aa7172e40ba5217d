#!/bin/bash
# Session 38, issue 42 item 6, call 2: the H200 table with call 1's fifteen
# re-tuned quantized prefill winners (freshest.py), imported into an empty
# database on an H200 that tuned none of it; every product winner of the
# table timed against its stored time (`vktune bench --max-drift 10`).
set -u
source measurements/device_env.sh
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import table exit $?" >> "$OUT/log.txt"
timeout 300 vktune bench matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 --device 0 --db /tmp/b.db \
  --max-drift 10 > "$OUT/bench_products.txt" 2> "$OUT/bench_products.stderr.txt"
echo "bench products --max-drift 10 exit $?" >> "$OUT/log.txt"
