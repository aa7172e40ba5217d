#!/bin/bash
# Session 47, call 1 (issue 41 item 2): the dedicated decode layouts' X_SCOPE=2,
# each step's weights and x loaded during the step before it. The binary
# built from this session's tree (version.txt names its template set)
# imports measurements/nvidia-h200/table.json alone into an empty database
# and runs `vktune step --tuned` of Llama-3-8B Q4_K_M's decode at context
# 128 (the committed table's chain, none of it X_SCOPE=2); then the
# products of the step's largest phases are tuned within X_SCOPE=2 only
# (`--only X_SCOPE=2`), and the step runs again at 128, where each product
# takes whichever of the imported winner and the X_SCOPE=2 one is faster.
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
  run "tune $kernel" timeout 80 vktune $kernel --device 0 "${shapes[@]}" --only X_SCOPE=2 --time 45s --db $db \
    --seed 5 > "$OUT/tune_$kernel.txt" 2>> "$OUT/log.txt"
}
tune matmul_q4k 1,28672,4096 1,4096,4096
tune matmul_q6k_swiglu 1,4096,14336
tune matmul_q4k_swiglu 1,4096,14336
tune matmul_q6k 1,128256,4096
step prefetch 128
step prefetch 128
vktune export --db $db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table.json"
