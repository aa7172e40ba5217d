#!/bin/bash
# Session 37, issue 42 item 4: Llama-3-8B Q4_K_M's 512-token prefill with
# the products on DEQUANT_STAGE=2. Session 34's prefill table is imported
# and the prefill run (`vktune step --prompt 512`, KHR, the default); then
# the six product shapes of the prefill are tuned into the same database on
# DEQUANT_STAGE=2 alone (exhaustive over session 37's neighbourhood: DQ_WG=256
# DQ_RUN=8, TILE_M=128, TILE_N 128 or 256, TILE_K 32 or 64, every CM_SHAPE
# and warp layout), the prefill run again, and the table exported.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session34/prefill/llama3-8b_q4km_ctx8192_prefill512.json
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
rm -f /tmp/p.db*
vktune import $t --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import prefill table exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
step() {
  start=$(date +%s)
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
    > "$OUT/step_prompt512_$1.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 ($1)" $?
}
step before
common="--only DEQUANT_STAGE=2 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 --only TILE_N=128,256 --only TILE_K=32,64 --strategy exhaustive --seed 37"
start=$(date +%s)
timeout 150 vktune matmul_q4k --device 0 -s 512,14336,4096 -s 512,4096,14336 -s 512,4096,4096 -s 512,1024,4096 $common \
  --time 135s --db /tmp/p.db > "$OUT/tune_q4k.txt" 2> "$OUT/tune_q4k.stderr.txt"
stamp "tune matmul_q4k DEQUANT_STAGE=2" $?
start=$(date +%s)
timeout 80 vktune matmul_q6k --device 0 -s 512,4096,14336 -s 512,1024,4096 $common \
  --time 70s --db /tmp/p.db > "$OUT/tune_q6k.txt" 2> "$OUT/tune_q6k.stderr.txt"
stamp "tune matmul_q6k DEQUANT_STAGE=2" $?
step after
vktune export --db /tmp/p.db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
