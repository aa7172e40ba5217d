#!/bin/bash
# Session 13: matmul_q6k's SUPER_BLOCK=1 decode path before (session 12's
# templates, carried as old_templates/: 32-bit loads, odd blocks realigned)
# and after (16-byte vectors realigned by selects, on the shared walk), each
# tuned over the same space with the same budget and seed, cold caches; then
# the new path hot. Run from the repository root with .dist, .gl and
# old_templates carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
shapes="--shape 1,4096,4096 --shape 1,14336,4096 --shape 1,4096,14336"
common="--device 0 $shapes --only X_QUANT=1 --only SUPER_BLOCK=1 --no-transfer --seed 1 --time ${TUNE_TIME:-120s} --json"
vktune matmul_q6k $common --templates old_templates --db /tmp/old.db > "$OUT/q6k_old.json" 2> "$OUT/q6k_old.log"
echo "old exit $?" >> "$OUT/log.txt"
vktune matmul_q6k $common --db /tmp/new.db > "$OUT/q6k_new.json" 2> "$OUT/q6k_new.log"
echo "new exit $?" >> "$OUT/log.txt"
