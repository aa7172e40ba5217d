#!/bin/bash
# Session 16, second run: as run_step_fused.sh, with the small ops that
# `vktune model` gave a few seconds (it shares its time by the gap to each
# op's floor, and the products' gaps are larger) tuned on their own after it:
# both chains' norms, attention, argmax, the unfused chain's add and rope on
# k. Then both chains are timed on this GPU. At most 8 files come back.
set -u
source results/h200/session12/device_env.sh
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
vktune model /tmp/llama3-8b.gguf --device 0 --time ${TIME:-150s} --context 128 --prompt 0 --seed 16 \
  --db /tmp/model.db --json > "$OUT/model.json" 2> /tmp/model.err
echo "model exit $?" >> "$OUT/log.txt"
for job in "add_rmsnorm_mul 1,4096 30s" "rmsnorm_mul 1,4096 30s" "attention_decode 32,8,128,128 30s" \
           "argmax 1,128256 15s" "add 1,4096 10s" "rope 1,8,128 10s"; do
  set -- $job
  vktune "$1" --device 0 --shape "$2" --time "$3" --db /tmp/model.db --seed 16 > /tmp/tune.txt 2>&1
  echo "$1 $2: $(grep -E 'winner .* vs baseline' /tmp/tune.txt)" >> "$OUT/log.txt"
done
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" |
  grep -v "    baseline:" > "$OUT/step128.txt"
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --unfused --tuned --db /tmp/model.db --seed 3 \
  2>> "$OUT/log.txt" | grep -v "    baseline:" > "$OUT/step128_unfused.txt"
