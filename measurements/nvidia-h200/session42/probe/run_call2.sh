#!/bin/bash
# Session 42, call 2 (issue 42, item 4): the 512-token prefill of Llama-3-8B
# Q4_K_M before and after, on one H200. session 39's prefill table (call 3)
# and table.json imported. `vktune step --prompt 512`:
#   before   main's binary (vktune-main: gate and up apart, SwiGLU apart);
#   attn     main's binary after attention_prefill 512,32,8,128,512 re-tuned
#            exhaustively on the tensor-core path (its stored winner, 110.4 us,
#            predates the template's KHR form; call 1 found 32.4 us);
#   after    this tree's binary: gate and up as one stacked product
#            (512,28672,4096, tuned here from 512,14336,4096's winners as
#            transfer seeds) and swiglu_stacked (tuned here).
# The database's table for the prefill exported for call 3.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/p.db; rm -f $db*
xz -dc measurements/nvidia-h200/session39/prefetch_depth/call3/llama3-8b_q4km_ctx8192_prefill512.json.xz > /tmp/prefill.json
for t in /tmp/prefill.json measurements/nvidia-h200/table.json; do
  vktune import $t --db $db >> "$OUT/log.txt" 2>&1; echo "import $t exit $?" >> "$OUT/log.txt"
done
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
step() {  # binary log
  start=$(date +%s)
  timeout 90 $1 step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db $db --seed 3 --tuned \
    > "$OUT/$2" 2>> "$OUT/log.txt"
  stamp "$1 step --prompt 512 ($2)" $?
}
tune() {  # log kernel shape seconds [args]
  local log=$1 kernel=$2 shape=$3 seconds=$4; shift 4
  start=$(date +%s)
  vktune $kernel --device 0 -s $shape --seed 42 --time ${seconds}s --top 10 --db $db "$@" \
    < /dev/null > "$OUT/$log.txt" 2> "$OUT/$log.stderr.txt"
  stamp "tune $kernel $shape" $?
}
step vktune-main step_before.txt
tune tune_attention attention_prefill 512,32,8,128,512 60 --only MMA=1 --strategy exhaustive --exhaustive
step vktune-main step_attn1.txt
tune tune_gate_up matmul_q4k 512,28672,4096 130 --only DEQUANT_STAGE=2
tune tune_swiglu_stacked swiglu_stacked 512,14336 25
step vktune step_after1.txt
step vktune-main step_attn2.txt
step vktune step_after2.txt
start=$(date +%s)
vktune export --db $db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" \
  2>> "$OUT/log.txt"
stamp "export --model" $?
rm -f /tmp/llama3-8b.gguf
