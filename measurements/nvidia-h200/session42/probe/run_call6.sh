#!/bin/bash
# Session 42, call 6 (issue 42, item 6), on an H200 that tuned none of it:
# the final candidate (call 4's, with call 5's kv_store 1,1024,8192 merged in
# by `vktune import --newest-per-model`) imported alone; `vktune bench
# --max-drift 10` of the kernels whose winners it adds to table.json.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session42/probe/table_candidate2.json.xz > /tmp/table.json
vktune import /tmp/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
timeout 200 vktune bench attention_prefill swiglu_stacked matmul_q4k matmul_q6k matmul_q4k_swiglu matmul_q6k_swiglu \
  add_rmsnorm_mul kv_store rope_cache --device 0 --db $db --max-drift 10 \
  > "$OUT/bench_added.txt" 2> "$OUT/bench_added.stderr.txt"
echo "bench --max-drift 10 exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
