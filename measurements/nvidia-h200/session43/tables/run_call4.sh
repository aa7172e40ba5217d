#!/bin/bash
# Session 43, call 4 (issue 41, item 1): the Mistral-7B preset's vocabulary
# is 32,768 (call 3: `export --model` left out its embedding lookup, output
# head and argmax); those three tuned on call 2's candidate table, the whole
# database exported as the new candidate, `export --model` and `vktune
# step` of Mistral-7B from it, then `vktune bench --max-drift 10` of the
# kernels call 2 added winners to (this GPU tuned none of those).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session43/tables/call2/table_candidate.json.xz > /tmp/table.json
vktune import /tmp/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
tune() {  # kernel seconds shapes...
  local kernel=$1 secs=$2; shift 2
  local shapes=() s
  for s in "$@"; do shapes+=(--shape "$s"); done
  run "tune $kernel $* (--time ${secs}s)" timeout $((secs + 90)) vktune "$kernel" --device 0 "${shapes[@]}" \
    --time ${secs}s --seed 43 --db $db > "$OUT/tune_$kernel.txt" 2> "$OUT/tune_$kernel.stderr.txt"
}
tune matmul_q6k 40 1,32768,4096
tune get_rows_q4k 15 1,32768,4096
tune argmax 15 1,32768
run "export" vktune export --db $db -o "$OUT/table_candidate2.json" 2>> "$OUT/log.txt"
xz -9 "$OUT/table_candidate2.json"
run "gguf --make-random mistral-7b" vktune gguf --make-random mistral-7b Q4_K_M -o /tmp/m.gguf >> "$OUT/log.txt" 2>&1
for ctx in 128 4096; do
  run "export --model mistral-7b --context $ctx --prompt 0" vktune export --db $db --model /tmp/m.gguf \
    --context $ctx --prompt 0 -o /tmp/export.json 2>> "$OUT/log.txt"
done
run "step mistral-7b ctx 128" timeout 90 vktune step /tmp/m.gguf --device 0 --context 128 --db $db --seed 3 \
  --tuned > "$OUT/step_mistral-7b_ctx128.txt" 2>> "$OUT/log.txt"
rm -f /tmp/m.gguf
run "bench --max-drift 10" timeout 200 vktune bench argmax attention_decode get_rows_q4k kv_store matmul_q4k_swiglu \
  matmul_q6k_swiglu rmsnorm_mul rope_cache rope_neox_cache --device 0 --db $db --max-drift 10 \
  > "$OUT/bench_added.txt" 2> "$OUT/bench_added.stderr.txt"
