#!/bin/bash
# Session 19: Google Benchmark reports of this session's H200 tables on
# another H200 than the one that tuned them (h200_decode_fp16/, call 19):
# the decode targets (hot) and the fp16-mode specs (cold). Each winner's
# report carries stored_us and vs_stored (its time on the tuning GPU, and
# this one's over it). Then run_reproduce.sh (the committed table). Run from
# the repository root with .gl, .dist/bin and .dist/lib carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
S=results/h200/session19
vktune import $S/h200_decode_fp16/dec/decode_table.json --db $T/hot.db > "$OUT/bench_tables.txt" 2>&1
vktune bench matmul_q6k matmul_q8_0 matmul_q4_0 --device ${DEV:-0} --db $T/hot.db --cache hot -- \
  --benchmark_format=json > "$OUT/decode_bench_reproduced.json" 2>> "$OUT/bench_tables.txt"
vktune import $S/h200_decode_fp16/fp16/fp16_specs_table.json --db $T/f16.db >> "$OUT/bench_tables.txt" 2>&1
vktune bench --device ${DEV:-0} --db $T/f16.db -- --benchmark_format=json \
  > "$OUT/fp16_specs_bench_reproduced.json" 2>> "$OUT/bench_tables.txt"
timeout ${REPRODUCE_SECONDS:-300} bash $S/run_reproduce.sh
