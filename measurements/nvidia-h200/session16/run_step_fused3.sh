#!/bin/bash
# Session 16, third run: the fused step at context 128 (checked op by op and
# against the CPU chain) and at 4096, fused and unfused, on another H200.
# No `vktune model` run: the products take session 11's H200 winners
# (.dist/model.db, another H200 of this model); the ops that are new or
# context-dependent are tuned here first.
set -u
source measurements/device_env.sh
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for job in "add_rmsnorm_mul 1,4096 25s" "rmsnorm_mul 1,4096 15s" "attention_decode 32,8,128,128 25s" \
           "attention_decode 32,8,128,4096 30s" "rope_cache 1,8,128,128 10s" "rope_cache 1,8,128,4096 10s" \
           "kv_store 1,1024,128 10s" "kv_store 1,1024,4096 10s" "rope 1,32,128 10s" "swiglu 1,14336 10s" \
           "argmax 1,128256 10s" "add 1,4096 10s" "rope 1,8,128 10s"; do
  set -- $job
  vktune "$1" --device 0 --shape "$2" --time "$3" --db /tmp/model.db --seed 17 > /tmp/tune.txt 2>&1
  echo "$1 $2: $(grep -E 'winner .* vs baseline' /tmp/tune.txt)" >> "$OUT/log.txt"
done
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json \
  > "$OUT/step128_check.json" 2>> "$OUT/log.txt"
echo "step 128 --check exit $?" >> "$OUT/log.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" |
  grep -v "    baseline:" > "$OUT/step4096.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --unfused --tuned --db /tmp/model.db --seed 3 \
  2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step4096_unfused.txt"
