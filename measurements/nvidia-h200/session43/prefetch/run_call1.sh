#!/bin/bash
# Session 43, call 1 (issue 41, item 2): Llama-3-8B Q4_K_M decode with the
# next products' weights read into L2 beside the latency-bound ops
# (`vktune step --prefetch MIB --prefetch-ahead MIB`), from the committed
# table imported alone; the prefetch ops run their baseline. Without, then
# per-phase/ahead pairs, at context 128, then the best two and none at 4096.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
vktune import measurements/nvidia-h200/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
step() {  # name context args...
  local name=$1 ctx=$2; shift 2
  start=$(date +%s)
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 --tuned "$@" \
    > "$OUT/step_${name}_ctx$ctx.txt" 2>> "$OUT/log.txt"
  stamp "step $name ctx $ctx ($*)" $?
}
step none 128
step p8a16 128 --prefetch 8 --prefetch-ahead 16
step p16a32 128 --prefetch 16 --prefetch-ahead 32
step p24a40 128 --prefetch 24 --prefetch-ahead 40
step p32a48 128 --prefetch 32 --prefetch-ahead 48
step p16a64 128 --prefetch 16 --prefetch-ahead 64
step p48a96 128 --prefetch 48 --prefetch-ahead 96
step none_again 128
step none 4096
step p16a32 4096 --prefetch 16 --prefetch-ahead 32
step p32a48 4096 --prefetch 32 --prefetch-ahead 48
