#!/bin/bash
# Session 44, call 5: call 4's drift check again, with vktune-bench carried
# (call 4's exited 5: not found): table.json imported alone on an H200
# that tuned none of this session's winners, `vktune bench --max-drift 10`
# of the kernels this session added winners to or changed.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
db=/tmp/t.db; rm -f $db*
vktune import measurements/nvidia-h200/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
timeout 400 vktune bench attention_decode matmul_q6k get_rows_q4k matmul_q4k rmsnorm_mul rope_neox_cache swiglu_stacked \
  --device 0 --db $db --max-drift 10 > "$OUT/bench_added.txt" 2> "$OUT/bench_added.stderr.txt"
echo "bench --max-drift 10 exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
