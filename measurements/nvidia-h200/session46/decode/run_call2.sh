#!/bin/bash
# Session 46, call 2 (issue 41 items 1 and 2), on another H200 than call 1,
# the same binary (fdc838d's templates: version.txt). The candidate table
# call 1 exported (measurements/nvidia-h200/table.json's 138 winners and
# the epilogue products' 6 at contexts 128 and 4096) imported alone into an
# empty database: `vktune step --tuned` of Llama-3-8B Q4_K_M at contexts 128
# and 4096, no tuning here (does call 1's figure reproduce on a GPU that
# tuned none of it?). Then the three cache epilogues tuned at context
# 8192's shapes and the step at 8192; the table exported.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session46/decode/call1/table.json.xz > /tmp/candidate.json
vktune import /tmp/candidate.json --db $db >> "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
step() {  # model label context
  run "step $1 $2 ctx $3" timeout 90 vktune step /tmp/$1.gguf --device 0 --context $3 --db $db --seed 3 \
    --tuned >> "$OUT/step_$1_$2_ctx$3.txt" 2>> "$OUT/log.txt"
}
run "gguf --make-random llama3-8b" vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
step llama3-8b imported 128
step llama3-8b imported 4096
tune() {  # kernel shape
  run "tune $1 $2" timeout 80 vktune $1 --device 0 --shape $2 --time 40s --db $db --seed 5 \
    >> "$OUT/tune_$1.txt" 2>> "$OUT/log.txt"
}
tune matmul_q4k_rope_cache 1,1024,4096,128,8192
tune matmul_q4k_cache 1,1024,4096,8192
tune matmul_q6k_cache 1,1024,4096,8192
step llama3-8b epilogues 8192
vktune export --db $db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
