#!/bin/bash
# Session 13, last: the decode templates before (old_templates/, commit
# b78f357) and after their slot reduction moved into
# include/matvec_slot_reduce.glsl: Q4_K's exact layout and Q6_K's integer
# layout, each tuned 25 s over the same space and seed at 1x14336x4096 and
# 1x4096x4096 (cold). Writes winners.txt. Run from the repository root with
# .dist, .gl and old_templates carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
for t in old new; do
  args=()
  [ $t = old ] && args=(--templates old_templates)
  vktune matmul_q4k --device 0 --shape 1,14336,4096 --shape 1,4096,4096 --only SUPER_BLOCK=1 --only X_QUANT=0 \
    --no-transfer --seed 1 --time 25s "${args[@]}" --db /tmp/$t.db > /tmp/q4k_$t.log 2>&1
  echo "matmul_q4k $t exit $?" >> "$OUT/log.txt"
  vktune matmul_q6k --device 0 --shape 1,14336,4096 --shape 1,4096,4096 --only SUPER_BLOCK=1 --only X_QUANT=1 \
    --no-transfer --seed 1 --time 25s "${args[@]}" --db /tmp/$t.db > /tmp/q6k_$t.log 2>&1
  echo "matmul_q6k $t exit $?" >> "$OUT/log.txt"
  vktune export --db /tmp/$t.db -o /tmp/$t.json
done
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" old=/tmp/old.json new=/tmp/new.json
