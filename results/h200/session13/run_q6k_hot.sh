#!/bin/bash
# Session 13, final: matmul_q6k's decode shapes hot (the issue's comparison
# with llama.cpp is hot-for-hot), the whole X_QUANT=1 space as pruned now
# (the generic, staged and super-block paths), 150 s for the three shapes.
# Writes winners.txt. Run from the repository root with .dist and .gl carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
vktune matmul_q6k --device 0 --shape 1,4096,4096 --shape 1,14336,4096 --shape 1,4096,14336 --only X_QUANT=1 \
  --no-transfer --seed 5 --time 150s --cache hot --db /tmp/hot.db > "$OUT/q6k_hot.log" 2>&1
echo "exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/hot.db -o /tmp/hot.json
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" hot=/tmp/hot.json
