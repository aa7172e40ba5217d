#!/bin/bash
# Session 47, call 2 (issue 41 item 2): more invocations per row for the
# decode products. THREADS_PER_ROW=128 (32 slots) on the dedicated layouts'
# slot-scope path, and the space without the NVIDIA pruning (`--space full`:
# one row per invocation, 64-invocation workgroups, ...), searched within
# the slot-scope integer path (`--only SUPER_BLOCK=1 X_QUANT=1 X_SCOPE=1`)
# for the products of the step's largest phases. The binary built from this
# session's tree (version.txt names its template set) imports
# measurements/nvidia-h200/table.json alone into an empty database and runs
# `vktune step --tuned` at context 128 before and after the tunes; each
# product keeps whichever of the imported winner and the new one is faster.
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
step() {  # label context
  run "step $1 ctx $2" timeout 90 vktune step /tmp/l.gguf --device 0 --context $2 --db $db --seed 3 \
    --tuned >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
run "gguf --make-random llama3-8b" vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/l.gguf >> "$OUT/log.txt" 2>&1
step table 128
tune() {  # kernel shapes...
  local kernel=$1; shift
  local shapes=(); for s in "$@"; do shapes+=(--shape "$s"); done
  run "tune $kernel" timeout 90 vktune $kernel --device 0 "${shapes[@]}" --space full --only SUPER_BLOCK=1 --only X_QUANT=1 --only X_SCOPE=1 --time 50s --db $db \
    --seed 5 > "$OUT/tune_$kernel.txt" 2>> "$OUT/log.txt"
}
tune matmul_q4k 1,28672,4096 1,4096,4096
tune matmul_q6k_swiglu 1,4096,14336
tune matmul_q4k_swiglu 1,4096,14336
tune matmul_q6k 1,128256,4096
step wide 128
step wide 128
vktune export --db $db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table.json"
