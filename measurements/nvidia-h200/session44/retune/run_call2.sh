#!/bin/bash
# Session 44, call 2 (issue 41 item 2): table.json imported, Llama-3-8B's
# decode products (and attention at context 4096) tuned again with this
# tree's templates: call 1 found the head (matmul_q6k 1,128256,4096) at
# 133.6 us and attn_v Q6_K (1,1024,4096) at 5.48 us in a restricted
# re-tune, against 142.1 and 6.39 stored (2026-11-29). A stored winner is
# replaced only by a faster one. The database exported: the candidate.
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
tune q6k 90s matmul_q6k 1,128256,4096 1,1024,4096
tune q4k 120s matmul_q4k 1,28672,4096 1,4096,4096 1,1024,4096
tune q4k_swiglu 45s matmul_q4k_swiglu 1,4096,14336
tune q6k_swiglu 45s matmul_q6k_swiglu 1,4096,14336
tune attention 50s attention_decode 32,8,128,4096
run export vktune export --db $db -o "$OUT/table_candidate.json"
xz -9 "$OUT/table_candidate.json"
