#!/bin/bash
# Session 44, call 3 (issue 41 item 1): the ops of Mistral-7B's and
# Qwen3-8B's 512-token prefill (context 8192) that table.json lacks, as
# tests/workloads/committed_table_test.cpp lists them: Mistral's embedding
# lookup of 512 tokens (vocabulary 32,768), and Qwen3's lookup, per-head q/k
# norms of 512 tokens, rope_neox_cache at 8192 (decode and prefill), the
# stacked gate and up (24,576 rows), swiglu_stacked and ffn_down (12,288).
# table.json (with call 2's three re-tuned decode winners) imported first,
# so each tune starts from its nearest tuned shapes; the database exported.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
vktune import measurements/nvidia-h200/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
tune() {  # name time kernel shapes...
  local name=$1 time=$2 kernel=$3; shift 3
  local shapes=""
  for s in "$@"; do shapes="$shapes -s $s"; done
  run "tune $kernel $*" timeout $(( ${time%s} + 60 )) vktune $kernel --device 0 $shapes --time $time --seed 44 --db $db \
    > "$OUT/tune_$name.txt" 2> "$OUT/tune_$name.stderr.txt"
}
tune get_rows 15s get_rows_q4k 512,32768,4096 512,151936,4096
tune rmsnorm_mul 20s rmsnorm_mul 16384,128 4096,128
tune rope_neox_cache 20s rope_neox_cache 1,8,128,8192 512,8,128,8192
tune swiglu_stacked 15s swiglu_stacked 512,12288
tune q4k 150s matmul_q4k 512,24576,4096 512,4096,12288
tune q6k 75s matmul_q6k 512,4096,12288
run export vktune export --db $db -o "$OUT/table_candidate.json"
xz -9 "$OUT/table_candidate.json"
