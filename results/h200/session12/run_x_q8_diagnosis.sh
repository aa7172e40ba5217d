#!/bin/bash
# Session 12: which the ops that fail `vktune step --check` are: the 8-bit
# activation products. Tune matmul_q4k's decode shapes with X_QUANT=1 only,
# on whatever GPU this lands on, then check the chain with those winners
# (baselines elsewhere) op by op, each failure against the CPU model of the
# 8-bit arithmetic too. Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/device_env.sh"
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
for shape in 1,4096,14336 1,4096,4096 1,14336,4096 1,1024,4096; do
  vktune matmul_q4k --device 0 --shape $shape --only X_QUANT=1 --time 15s --db /tmp/x_q8.db --seed 5 2>&1 | grep -E "winner .* vs baseline" >> "$OUT/log.txt"
done
( time vktune step /tmp/llama3-8b.gguf --device 0 --context 128 --tuned --tuned-kernels matmul_q4k --check --db /tmp/x_q8.db --seed 3 --json > "$OUT/step128_x_q8_check.json" ) 2>> "$OUT/log.txt"
echo "step exit $?" >> "$OUT/log.txt"
cp /tmp/x_q8.db "$OUT/x_q8.db"
