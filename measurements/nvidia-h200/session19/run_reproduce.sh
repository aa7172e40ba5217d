#!/bin/bash
# Session 19: issue 20's "winners reproduce with vktune bench on a fresh
# H200": the committed table (measurements/nvidia-h200/table.json, tuned on other
# H200s) imported into a fresh database, and a Google Benchmark report of
# each kernel's winners and baselines on this GPU, cold caches as tuned;
# then session 18's hot decode table (h200_decode_targets, another H200)
# the same way with --cache hot. One report per kernel, so a call that runs
# out of time keeps those done. Run from the repository root with .gl,
# .dist/bin and .dist/lib carried.
set -u
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)  # this run's databases and logs (runs on several GPUs go side by side)
vktune import measurements/nvidia-h200/table.json --db $T/cold.db > "$OUT/import.txt" 2>&1
vktune import measurements/nvidia-h200/session18/h200_decode_targets/decode_table.json --db $T/hot.db >> "$OUT/import.txt" 2>&1
for k in ${KERNELS:-matmul_q6k matmul_q8_0 matmul_q4_0 matmul_q4k matmul_q5k matmul_f16 matmul_f32}; do
  vktune bench $k --device ${DEV:-0} --db $T/cold.db -- --benchmark_format=json > "$OUT/bench_cold_$k.json" 2>> "$OUT/bench.txt"
  echo "$k cold exit $?" >> "$OUT/bench.txt"
done
for k in matmul_q6k matmul_q8_0 matmul_q4_0; do
  vktune bench $k --device ${DEV:-0} --db $T/hot.db --cache hot -- --benchmark_format=json > "$OUT/bench_hot_$k.json" 2>> "$OUT/bench.txt"
  echo "$k hot exit $?" >> "$OUT/bench.txt"
done
