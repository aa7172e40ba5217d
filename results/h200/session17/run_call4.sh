#!/bin/bash
# Session 17, call 4: where a shape's time goes besides its search, with the
# budget shared by estimated setups and tails (tuner/time_share.hpp): one
# 60 s tune of matmul_q4_0_f16's three prefill shapes, full output.
set -u
source results/h200/session12/device_env.sh
vktune matmul_q4_0_f16 --device 0 --shape 512,4096,4096 --shape 512,14336,4096 --shape 512,4096,14336 --time 60s \
  --seed 17 --top 3 --db /tmp/f16.db > "$OUT/prefill_60s.txt" 2> "$OUT/prefill_60s_progress.txt"
echo "exit $?" >> "$OUT/prefill_60s.txt"
