#!/bin/bash
# Session 13: the Llama-3-8B Q4_K_M decode step with this session's kernels
# (Q6_K's vector loads, Q4_K in the quantized family). On an H200: session
# 11's H200 winners (carried as .dist/model.db; matmul_q4k's translated from
# its earlier parameters), the context-128 attention and kv-store shapes
# tuned first. On another GPU: `vktune model --time 3m` tunes the step at
# context 128 from that database first. Then `vktune step` checks the tuned
# chain op by op and times both chains with where the time goes, at context
# 128 and 4096. Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/../../device_env.sh"
cp .dist/model.db /tmp/model.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
if grep -q H200 "$OUT/gpu.txt"; then
  vktune attention_decode --device 0 --shape 32,8,128,128 --time 30s --db /tmp/model.db --seed 4 > /tmp/tune.txt 2>&1
  vktune kv_store --device 0 --shape 1,1024,128 --time 10s --db /tmp/model.db --seed 4 >> /tmp/tune.txt 2>&1
  grep -E "winner .* vs baseline" /tmp/tune.txt >> "$OUT/log.txt"
else
  ( time vktune model /tmp/llama3-8b.gguf --device 0 --time 3m --context 128 --prompt 0 --seed 12 --db /tmp/model.db \
      --json > "$OUT/model.json" ) 2>> "$OUT/log.txt"
  echo "model exit $?" >> "$OUT/log.txt"
fi
vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --check --db /tmp/model.db --seed 3 --json \
  > "$OUT/step128_check.json" 2>> "$OUT/log.txt"
echo "step 128 --tuned --check exit $?" >> "$OUT/log.txt"
for ctx in 128 4096; do
  vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db /tmp/model.db --seed 3 2>> "$OUT/log.txt" |
    grep -v "    baseline:" > "$OUT/step$ctx.txt"
done
