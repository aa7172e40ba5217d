#!/bin/bash
# Session 13, last: the Q4_K and Q5_K integer layouts before (old_templates/,
# commit 0e3f449) and after their chunk scale decoding moved into
# include/q4k.glsl, each tuned 25 s over the same space and seed at
# 1x14336x4096 and 1x4096x4096 (cold). Writes winners.txt. Run from the
# repository root with .dist, .gl and old_templates carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
for t in old new; do
  args=()
  [ $t = old ] && args=(--templates old_templates)
  for spec in "matmul_q4k SUPER_BLOCK=1" "matmul_q5k SUPER_BLOCK=1"; do
    set -- $spec
    vktune "$1" --device 0 --shape 1,14336,4096 --shape 1,4096,4096 --only "$2" --only X_QUANT=1 --no-transfer \
      --seed 1 --time 25s "${args[@]}" --db /tmp/$t.db > /tmp/$1_$t.log 2>&1
    echo "$1 $t exit $?" >> "$OUT/log.txt"
  done
  vktune export --db /tmp/$t.db -o /tmp/$t.json
done
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" old=/tmp/old.json new=/tmp/new.json
