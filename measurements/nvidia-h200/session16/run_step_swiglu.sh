#!/bin/bash
# Session 16, fourth run: the decode step with SwiGLU fused into ffn_down as
# well (gate and up as one product of their stacked weights, down reading
# silu(gate)·up: 12 dispatches a layer), against the unfused chain on the
# same GPU with the same winners. Session 11's H200 database, `vktune model`
# for TIME, then the ops the model run gives little time tuned on their own
# (both chains' norms, attention, the new products). At most 8 files.
set -u
source measurements/device_env.sh
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune model /tmp/llama3-8b.gguf --device 0 --time ${TIME:-110s} --context 128 --prompt 0 --seed 16 \
  --db /tmp/model.db --json > "$OUT/model.json" 2> /tmp/model.err
echo "model exit $?" >> "$OUT/log.txt"
for job in "matmul_q4k 1,28672,4096 35s" "matmul_q4k_swiglu 1,4096,14336 35s" "matmul_q6k_swiglu 1,4096,14336 35s" \
           "add_rmsnorm_mul 1,4096 20s" "attention_decode 32,8,128,128 20s" "matmul_q4k 1,1024,4096 20s" \
           "rmsnorm_mul 1,4096 10s" "add 1,4096 8s" "rope 1,8,128 8s" "swiglu 1,14336 8s"; do
  set -- $job
  vktune "$1" --device 0 --shape "$2" --time "$3" --db /tmp/model.db --seed 16 > /tmp/tune.txt 2>&1
  echo "$1 $2: $(grep -E 'winner .* vs baseline' /tmp/tune.txt)" >> "$OUT/log.txt"
done
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" |
  grep -v "    baseline:" > "$OUT/step128.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --unfused --tuned --db /tmp/model.db --seed 3 \
  2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step128_unfused.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json \
  > "$OUT/step128_check.json" 2>> "$OUT/log.txt"
echo "step --check exit $?" >> "$OUT/log.txt"
