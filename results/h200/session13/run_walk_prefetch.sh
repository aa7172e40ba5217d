#!/bin/bash
# Session 13 (an experiment, not kept): the shared integer-dot decode walk without (old_templates/, as
# committed in d40a564) and with the next step's loads issued before this
# step's math, each kernel's dedicated layout tuned over the same space with
# the same budget and seed at 1x14336x4096 and 1x4096x4096 (cold). Writes
# one summary (winners.txt). Run from the repository root with .dist, .gl and
# old_templates carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
for t in old new; do
  args=()
  [ $t = old ] && args=(--templates old_templates)
  for spec in "matmul_q4k X_QUANT=1" "matmul_q4_0 BLOCK_PAIRS=1" "matmul_q8_0 BLOCK_PAIRS=1" "matmul_q5k SUPER_BLOCK=1" \
              "matmul_q6k SUPER_BLOCK=1"; do
    set -- $spec
    vktune "$1" --device 0 --shape 1,14336,4096 --shape 1,4096,4096 --only "$2" --no-transfer --seed 1 \
      --time ${TUNE_TIME:-28s} "${args[@]}" --db /tmp/$t.db > /tmp/$1_$t.log 2>&1
    echo "$1 $t exit $?" >> "$OUT/log.txt"
  done
  vktune export --db /tmp/$t.db -o /tmp/$t.json
done
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" old=/tmp/old.json new=/tmp/new.json
