#!/bin/bash
# Session 37, issue 42 item 4, second call: call 5 tuned the six prefill
# product shapes on DEQUANT_STAGE=2 alone, and at 512,1024,4096 (the k and v
# products) that path's best (87.8 and 88.2 us) is slower than session 34's
# DEQUANT_STAGE=1 winners (53.5 and 54.0 us), which the prefill then no
# longer used (the most recent winner serves). Here call 5's export is
# imported, those two shapes are tuned over the whole tensor-core space
# (both stages; the stored winners enter as seeds), and the prefill is run.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session37/prefill/call5/llama3-8b_q4km_ctx8192_prefill512.json
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
rm -f /tmp/p.db*
vktune import $t --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import call 5's table exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for k in matmul_q4k matmul_q6k; do
  start=$(date +%s)
  timeout 45 vktune $k --device 0 -s 512,1024,4096 --only USE_COOPMAT=1 --time 35s --seed 37 --db /tmp/p.db \
    > "$OUT/tune_$k.txt" 2> "$OUT/tune_$k.stderr.txt"
  stamp "tune $k 512,1024,4096" $?
done
start=$(date +%s)
timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
  > "$OUT/step_prompt512.txt" 2>> "$OUT/log.txt"
stamp "step --prompt 512" $?
vktune export --db /tmp/p.db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
