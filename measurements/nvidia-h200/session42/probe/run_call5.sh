#!/bin/bash
# Session 42, call 5 (issue 42, item 6): call 4's drift check found the
# candidate table's kv_store 1,1024,8192 winner (stored 2.59 us, on another
# GPU) at 2.33 us, 10.9% off by the symmetric rule, its baseline at 2.34.
# Here: the candidate imported alone; that winner benched; the shape tuned
# again (20 s, from the stored winner); the table exported for call 6.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session42/probe/table_candidate.json.xz > /tmp/table.json
vktune import /tmp/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
timeout 60 vktune bench kv_store --device 0 --db $db --max-drift 10 > "$OUT/bench_kv_store_before.txt" 2> "$OUT/bench_kv_store_before.stderr.txt"
stamp "bench kv_store before" $?
start=$(date +%s)
vktune kv_store --device 0 -s 1,1024,8192 --seed 42 --time 20s --top 10 --db $db < /dev/null > "$OUT/tune_kv_store.txt" 2> "$OUT/tune_kv_store.stderr.txt"
stamp "tune kv_store 1,1024,8192" $?
vktune export --db $db -o "$OUT/table_candidate2.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
