#!/bin/bash
# Session 34, issue 42 item 6: the H200 table's prefill winners
# (measurements/nvidia-h200/table.json, M = 512) re-tuned with today's
# templates. The table is imported with this session's Llama prefill table
# on top (call 2: matmul_q4k at its three shapes and matmul_q6k
# 512,4096,14336 re-tuned), the other eleven quantized prefill shapes are
# tuned again into the same database, and the whole database is exported.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
s=measurements/nvidia-h200
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
rm -f /tmp/t.db*
vktune import $s/table.json $s/session34/prefill/llama3-8b_q4km_ctx8192_prefill512.json --db /tmp/t.db > "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
for k in matmul_q4_0 matmul_q5k matmul_q8_0; do
  timeout 120 vktune $k --device 0 -s 512,4096,4096 -s 512,4096,14336 -s 512,14336,4096 --time 100s --seed 7 \
    --db /tmp/t.db > "$OUT/tune_$k.txt" 2> "$OUT/tune_$k.stderr.txt"
  echo "tune $k exit $?" >> "$OUT/log.txt"
done
timeout 90 vktune matmul_q6k --device 0 -s 512,4096,4096 -s 512,14336,4096 --time 70s --seed 7 \
  --db /tmp/t.db > "$OUT/tune_matmul_q6k.txt" 2> "$OUT/tune_matmul_q6k.stderr.txt"
echo "tune matmul_q6k exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/t.db -o "$OUT/table.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
