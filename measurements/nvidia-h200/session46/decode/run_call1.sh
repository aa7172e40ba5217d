#!/bin/bash
# Session 46, call 1 (issue 41 item 2): q, k and v with their rope and
# KV-cache stores in the products' epilogues (matmul_q4k_rope,
# matmul_q4k_rope_cache, matmul_q4k_cache, matmul_q6k_cache), one phase per
# layer fewer. The binary built from this session's tree (version.txt names
# its template set) imports measurements/nvidia-h200/table.json alone into
# an empty database and runs `vktune step --tuned` of Llama-3-8B Q4_K_M's
# decode at context 128: the table holds no epilogue winners, so the step
# keeps the products apart (the committed code's chain). Then the four
# epilogue kernels are tuned at the model's shapes for contexts 128 and
# 4096, and the step runs again at 128 (twice) and 4096, where it now
# takes the epilogues if their winners' medians beat the products apart
# plus rope, the stores and one dependent dispatch.
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
  run "tune $kernel" timeout 100 vktune $kernel --device 0 "${shapes[@]}" --time 60s --db $db --seed 5 \
    > "$OUT/tune_$kernel.txt" 2>> "$OUT/log.txt"
}
tune matmul_q4k_rope 1,4096,4096,128
tune matmul_q4k_rope_cache 1,1024,4096,128,128 1,1024,4096,128,4096
tune matmul_q4k_cache 1,1024,4096,128 1,1024,4096,4096
tune matmul_q6k_cache 1,1024,4096,128 1,1024,4096,4096
step epilogues 128
step epilogues 128
step epilogues 4096
# The imported table with the epilogue winners added (a candidate table.json).
vktune export --db $db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
