#!/bin/bash
# Session 16: the Llama-3-8B Q4_K_M decode step with the fused kernels
# (add_rmsnorm_mul for each residual add and the norm after it, rope_cache
# for k rotated into its cache row: 14 dispatches a layer, 17 before), against
# the same step unfused, on one GPU in one call. Starts from session 11's H200
# database (carried as .dist/model.db); `vktune model` tunes the fused step's
# ops at context 128, and the unfused chain's own small ops (add, rope on k)
# get a tune of their own, so that the two chains differ in fusion only.
# Run from the repository root with .dist and .gl carried.
set -u
source results/h200/session12/device_env.sh
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
( time vktune model /tmp/llama3-8b.gguf --device 0 --time ${TIME:-4m} --context 128 --prompt 0 --seed 16 \
    --db /tmp/model.db --json > "$OUT/model.json" ) 2> "$OUT/model.err"
echo "model exit $?" >> "$OUT/log.txt"
for job in "add 1,4096" "rope 1,8,128"; do
  set -- $job
  vktune "$1" --device 0 --shape "$2" --time 15s --db /tmp/model.db --seed 16 > "$OUT/tune_$1.txt" 2>&1
done
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" |
  grep -v "    baseline:" > "$OUT/step128.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --unfused --tuned --db /tmp/model.db --seed 3 \
  2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step128_unfused.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json \
  > "$OUT/step128_check.json" 2>> "$OUT/log.txt"
echo "step --check exit $?" >> "$OUT/log.txt"
