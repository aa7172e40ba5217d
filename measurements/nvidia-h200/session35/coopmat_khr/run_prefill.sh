#!/bin/bash
# Session 35, issue 43 item 4 (and issue 42): attention_prefill, whose KHR
# module hands P to P·V through shared memory (VKTUNE_COOPMAT_KHR), checked
# both ways; the re-tuned Llama-3-8B prefill table (session 34) timed as NV
# modules and as their KHR twins: `vktune bench` of its winners and
# `vktune step --prompt 512`, in the order NV, KHR, KHR, NV on one GPU.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session34/prefill/llama3-8b_q4km_ctx8192_prefill512.json
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
for mode in nv khr; do
  start=$(date +%s)
  timeout 60 vktune check attention_prefill --device 0 --coopmat $mode --seed 35 > "$OUT/check_attention_prefill_$mode.txt" 2>&1
  stamp "check attention_prefill --coopmat $mode" $?
done
rm -f /tmp/p.db*
vktune import $t --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import prefill table exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for run in nv1 khr1 khr2 nv2; do
  mode=${run%?}
  start=$(date +%s)
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
    --coopmat $mode > "$OUT/step_prompt512_$run.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 --coopmat $mode ($run)" $?
done
rm -f /tmp/llama3-8b.gguf
for run in nv1 khr1; do
  mode=${run%?}
  start=$(date +%s)
  timeout 50 vktune bench attention_prefill --device 0 --db /tmp/p.db --coopmat $mode -- '--benchmark_filter=/winner' \
    > "$OUT/bench_attention_prefill_$run.txt" 2> "$OUT/bench_attention_prefill_$run.stderr.txt"
  stamp "bench attention_prefill --coopmat $mode ($run)" $?
done
