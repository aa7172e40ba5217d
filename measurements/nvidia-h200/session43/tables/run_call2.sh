#!/bin/bash
# Session 43, call 2 (issue 41, item 1): the decode ops the committed table
# did not serve, tuned from it. `vktune step` from table.json imported alone
# ran attention_decode, rope_cache and kv_store on their baselines at
# context 128 and rope_cache and kv_store at 4096 (session43/prefetch/call1);
# Mistral-7B's vocabulary (32000) and Qwen3-8B's feed-forward (12288, gate
# and up stacked 24576), vocabulary (151936), per-head q/k norms and NeoX
# rope have shapes it holds none of. Each kernel's shapes in one run, a
# fixed seed; then the whole database exported (table.json's winners and
# these) as the candidate table.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
vktune import measurements/nvidia-h200/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
tune() {  # kernel seconds shapes...
  local kernel=$1 secs=$2; shift 2
  local shapes=() s
  for s in "$@"; do shapes+=(--shape "$s"); done
  local start=$(date +%s)
  timeout $((secs + 90)) vktune "$kernel" --device 0 "${shapes[@]}" --time ${secs}s --seed 43 --db $db \
    > "$OUT/tune_$kernel.txt" 2> "$OUT/tune_$kernel.stderr.txt"
  echo "tune $kernel $* (--time ${secs}s) exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
tune attention_decode 60 32,8,128,128
tune rope_cache 20 1,8,128,128 1,8,128,4096
tune rope_neox_cache 20 1,8,128,128 1,8,128,4096
tune kv_store 20 1,1024,128 1,1024,4096
tune matmul_q6k 80 1,32000,4096 1,151936,4096
tune get_rows_q4k 20 1,32000,4096 1,151936,4096
tune argmax 20 1,32000 1,151936
tune matmul_q4k 40 1,24576,4096
tune matmul_q6k_swiglu 40 1,4096,12288
tune matmul_q4k_swiglu 40 1,4096,12288
tune rmsnorm_mul 20 32,128 8,128
vktune export --db $db -o "$OUT/table_candidate.json" 2>> "$OUT/log.txt"; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_candidate.json"
