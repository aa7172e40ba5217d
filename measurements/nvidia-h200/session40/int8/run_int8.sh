#!/bin/bash
# Session 40, issue 42 item 1: the int8 tensor-core path of the quantized
# prefill (DEQUANT_STAGE=3, kernels/quant_coopmat.hpp) tuned alone at the
# M = 512 shapes of Llama-3-8B's products, then, on the same GPU, the fp16
# path's winners (session 39's candidate table, DEQUANT_STAGE=2) timed by
# `vktune bench` for the A/B. Every variant is validated against the CPU
# reference (int8 variants within kInt8Tolerance).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
rm -f /tmp/i8.db*
run() {  # kernel shape seconds
  local kernel=$1 shape=$2 secs=$3
  local start=$(date +%s)
  timeout $((secs + 30)) vktune $kernel --device 0 -s $shape --only DEQUANT_STAGE=3 --time ${secs}s --seed 40 \
    --db /tmp/i8.db > "$OUT/${kernel}_${shape}.txt" 2> "$OUT/${kernel}_${shape}.stderr.txt"
  echo "$kernel $shape exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
run matmul_q4k 512,4096,4096 45
run matmul_q4k 512,14336,4096 60
run matmul_q4k 512,4096,14336 60
run matmul_q8_0 512,4096,4096 45
run matmul_q6k 512,4096,4096 45
vktune results --db /tmp/i8.db --failures > "$OUT/results_failures.txt" 2>&1
vktune export --db /tmp/i8.db > "$OUT/int8_table.json" 2> "$OUT/export.stderr.txt"
# The fp16 path's winners on this GPU (session 39's candidate: DEQUANT_STAGE=2).
D=measurements/nvidia-h200/session39/prefetch_depth
rm -f /tmp/b.db*
xz -dc $D/table_candidate.json.xz > /tmp/table_candidate.json
vktune import /tmp/table_candidate.json --db /tmp/b.db >> "$OUT/log.txt" 2>&1
start=$(date +%s)
timeout 150 vktune bench matmul_q4k matmul_q8_0 matmul_q6k --device 0 --db /tmp/b.db \
  > "$OUT/bench_fp16_winners.txt" 2> "$OUT/bench_fp16_winners.stderr.txt"
echo "bench fp16 winners exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
