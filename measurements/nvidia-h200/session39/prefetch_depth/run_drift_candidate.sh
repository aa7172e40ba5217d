#!/bin/bash
# Session 39, issue 42 item 6, for the next session's device time:
# table_candidate.json.xz is measurements/nvidia-h200/table.json with its
# fifteen quantized M = 512 winners replaced by call 4's (each the faster of
# CM_PREFETCH 1 and 2 on GPU-500cae69; ../../session34/prefill/freshest.py
# over call4/table_after.json.xz). Imported into an empty database on an
# H200 that tuned none of it, every product winner is timed against its
# stored time (`vktune bench --max-drift 10`); exit 0 is the check that
# lets the candidate replace table.json.
set -u
source measurements/device_env.sh
D=measurements/nvidia-h200/session39/prefetch_depth
rm -f /tmp/b.db*
xz -dc $D/table_candidate.json.xz > /tmp/table_candidate.json
vktune import /tmp/table_candidate.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import candidate exit $?" >> "$OUT/log.txt"
timeout 300 vktune bench matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 --device 0 --db /tmp/b.db \
  --max-drift 10 > "$OUT/bench_products.txt" 2> "$OUT/bench_products.stderr.txt"
echo "bench products --max-drift 10 exit $?" >> "$OUT/log.txt"
