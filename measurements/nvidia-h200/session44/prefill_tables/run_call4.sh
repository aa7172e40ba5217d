#!/bin/bash
# Session 44, call 4 (issue 41 items 1 and 2), on an H200 that tuned none
# of it: table.json (call 2's three decode winners and call 3's ten
# prefill ops merged in, 138 winners) imported alone into an empty
# database. `vktune step --tuned` of Llama-3-8B's decode at 128 (twice)
# and 4096; `export --model` and `step --prompt 512` (context 8192) of
# Qwen3-8B and Mistral-7B; then `vktune bench --max-drift 10` of the
# kernels this session added winners to.
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
run "gguf --make-random llama3-8b" vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/l.gguf >> "$OUT/log.txt" 2>&1
for ctx in 128 128 4096; do
  run "step llama3-8b ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db $db --seed 3 \
    --tuned >> "$OUT/step_llama3-8b_ctx$ctx.txt" 2>> "$OUT/log.txt"
done
rm -f /tmp/l.gguf
for preset in qwen3-8b mistral-7b; do
  run "gguf --make-random $preset" vktune gguf --make-random $preset Q4_K_M -o /tmp/m.gguf >> "$OUT/log.txt" 2>&1
  run "export --model $preset --context 8192 --prompt 512" vktune export --db $db --model /tmp/m.gguf --context 8192 \
    --prompt 512 -o "$OUT/export_${preset}_prefill512.json" 2>> "$OUT/log.txt"
  xz -9 "$OUT/export_${preset}_prefill512.json"
  run "step $preset --prompt 512" timeout 100 vktune step /tmp/m.gguf --device 0 --context 8192 --prompt 512 --db $db \
    --seed 3 --tuned > "$OUT/step_${preset}_prompt512.txt" 2>> "$OUT/log.txt"
  rm -f /tmp/m.gguf
done
run "bench --max-drift 10" timeout 150 vktune bench attention_decode matmul_q6k get_rows_q4k matmul_q4k rmsnorm_mul \
  rope_neox_cache swiglu_stacked --device 0 --db $db --max-drift 10 > "$OUT/bench_added.txt" 2> "$OUT/bench_added.stderr.txt"
