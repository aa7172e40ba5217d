#!/bin/bash
# Session 19: Google Benchmark reports of this session's H200 decode table
# (h200_decode_fp16/dec, call 19, GPU-aadf05c5) on another H200, hot; each
# winner's report carries stored_us and vs_stored (its time on the tuning
# GPU, and this one's over it). Then the quantized kernels of the committed
# table (run_reproduce.sh). Everything is packed into one archive ($OUT
# returns at most 8 files). Run from the repository root with .gl,
# .dist/bin and .dist/lib carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
R=$T/out
mkdir -p $R
cp "$OUT/gpu.txt" $R/
S=results/h200/session19
vktune import $S/h200_decode_fp16/dec/decode_table.json --db $T/hot.db > $R/bench_tables.txt 2>&1
vktune bench matmul_q6k matmul_q8_0 matmul_q4_0 --device ${DEV:-0} --db $T/hot.db --cache hot -- \
  --benchmark_format=json > $R/decode_bench_reproduced.json 2>> $R/bench_tables.txt
tar -C $T -czf "$OUT/bench_tables.tgz" out  # kept if the call ends during the next step
OUT=$R KERNELS="matmul_q6k matmul_q8_0 matmul_q4_0 matmul_q4k matmul_q5k" timeout ${REPRODUCE_SECONDS:-200} \
  bash $S/run_reproduce.sh
tar -C $T -czf "$OUT/bench_tables.tgz" out
