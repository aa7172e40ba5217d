#!/bin/bash
# Session 35, issue 43 item 4: the tensor-core paths through
# VK_KHR_cooperative_matrix on an H200 (whose driver offers it beside NV).
# 1. `vktune devices` with and without --coopmat khr: the KHR feature and
#    shapes, and which extension the tensor-core paths take.
# 2. The committed H200 table (measurements/nvidia-h200/table.json) imported
#    into an empty database; `vktune bench` of its tensor-core winners, each
#    compiled as an NV module and as its KHR twin (the same config through
#    the NV-to-KHR pass), in the order NV, KHR, KHR, NV on one GPU.
# 3. `vktune check --coopmat khr` of every kernel with a tensor-core path:
#    the covering array of each, and the table's winners.
set -u
source measurements/device_env.sh
vktune --version > "$OUT/version.txt" 2>&1
vktune devices > "$OUT/devices.txt" 2>&1
vktune devices --json > "$OUT/devices.json" 2>&1
vktune devices --coopmat khr > "$OUT/devices_khr.txt" 2>&1
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db > "$OUT/log.txt" 2>&1
echo "import table exit $?" >> "$OUT/log.txt"
kernels="matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 attention_decode"
filter='--benchmark_filter=(M512|M4096).*/winner|attention_decode/.*/winner'
for run in nv1 khr1 khr2 nv2; do
  mode=${run%?}
  start=$(date +%s)
  timeout 110 vktune bench $kernels --device 0 --db /tmp/b.db --coopmat "$mode" -- "$filter" \
    --benchmark_out="$OUT/bench_$run.json" --benchmark_out_format=json \
    > "$OUT/bench_$run.txt" 2> "$OUT/bench_$run.stderr.txt"
  echo "bench --coopmat $mode ($run) exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
done
start=$(date +%s)
timeout 200 vktune check matmul_f16 matmul_q4_0 matmul_q4k matmul_q5k matmul_q6k matmul_q8_0 matmul_q4_0_f16 \
  matmul_q4k_f16 matmul_q8_0_f16 attention_decode attention_prefill --device 0 --coopmat khr --seed 35 \
  --table measurements/nvidia-h200/table.json > "$OUT/check_khr.txt" 2> "$OUT/check_khr.stderr.txt"
echo "check --coopmat khr exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
