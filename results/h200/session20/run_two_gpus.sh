#!/bin/bash
# Session 20, for a machine of two H200s: reproduction and the new space's
# decode winners side by side, each table benched on a GPU it was not
# tuned on.
#   GPU 0: session 19's decode table (tuned on GPU-aadf05c5) benched hot,
#          and the committed table's quantized kernels cold
#          (session19/run_bench_tables.sh).
#   GPU 1: issue 20's decode targets tuned again on this commit's spaces
#          (THREADS_PER_ROW=64 on the slot-scope path), then the slot-scope
#          stage ladder (run_slot_ladder.sh).
#   Then GPU 0 benches GPU 1's new decode table.
# A call returns at most 8 files: each GPU's outputs come back as one
# archive, written as soon as its work ends.
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
S=results/h200/session20
W=$(mktemp -d)
mkdir -p $W/g0 $W/g1
( DEV=0 OUT=$W/g0 REPRODUCE_SECONDS=${REPRODUCE_SECONDS:-190} timeout 330 bash results/h200/session19/run_bench_tables.sh
  tar -C $W -czf "$OUT/g0.tgz" g0 ) &
( DEV=1 OUT=$W/g1 timeout 280 bash results/h200/session18/run_decode_targets.sh
  tar -C $W -czf "$OUT/g1.tgz" g1
  DEV=1 OUT=$W/g1 timeout 230 bash $S/run_slot_ladder.sh
  tar -C $W -czf "$OUT/g1.tgz" g1 ) &
wait
T=$(mktemp -d)
mkdir -p $W/g0/g1_table
vktune import "$W/g1/decode_table.json" --db $T/hot.db > "$W/g0/g1_table/import.txt" 2>&1
vktune bench matmul_q6k matmul_q8_0 matmul_q4_0 --device 0 --db $T/hot.db --cache hot -- \
  --benchmark_format=json > "$W/g0/g1_table/decode_bench_reproduced.json" 2>> "$W/g0/g1_table/import.txt"
tar -C $W -czf "$OUT/g0.tgz" g0
