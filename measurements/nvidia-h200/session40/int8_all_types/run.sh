#!/bin/bash
# Session 40, issue 42 item 1: the int8 path (DEQUANT_STAGE=3) at 512,4096,4096
# for the two types calls 1 and 3 left out (Q4_0, Q5_K), tuned alone with
# `--space full` (the pruned space leaves it out on NVIDIA's devices, which
# `vktune list` shows first), then the committed table.json's fp16-path
# winners of those kernels benched on the same GPU.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
vktune list matmul_q4_0 --device 0 > "$OUT/list_matmul_q4_0.txt" 2>&1
rm -f /tmp/i8.db*
for kernel in matmul_q4_0 matmul_q5k; do
  start=$(date +%s)
  timeout 80 vktune $kernel --device 0 -s 512,4096,4096 --space full --only DEQUANT_STAGE=3 --time 45s --seed 40 \
    --db /tmp/i8.db > "$OUT/tune_${kernel}.txt" 2>&1
  echo "$kernel exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
done
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db >> "$OUT/log.txt" 2>&1
start=$(date +%s)
timeout 120 vktune bench matmul_q4_0 matmul_q5k --device 0 --db /tmp/b.db > "$OUT/bench.txt" 2> "$OUT/bench.stderr.txt"
echo "bench exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
