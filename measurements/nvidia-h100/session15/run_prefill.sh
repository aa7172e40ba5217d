#!/bin/bash
# Session 15: attention_prefill on this GPU. Checks every variant of the
# covering array at the check shapes and at the default shapes (the
# reference samples 48 queries there), then times every legal config of
# both paths at each default shape (exhaustive: the space is small), fresh
# database. Run from the repository root.
set -u
source measurements/device_env.sh
( time vktune check attention_prefill --device 0 --variants covering --shapes ci ) > "$OUT/check_ci.txt" 2>&1
( time vktune check attention_prefill --device 0 --variants covering --shapes default ) > "$OUT/check_default.txt" 2>&1
for shape in ${SHAPES:-512,32,8,128,512 2048,32,8,128,2048 2048,32,8,64,2048}; do
  vktune attention_prefill --device 0 --shape $shape --strategy ${STRATEGY:-exhaustive} --time ${SECONDS_EACH:-100}s \
    --seed 15 --top 12 ${ONLY:+--only $ONLY} --db "$OUT/prefill.db" > "$OUT/tune_${shape//,/x}.txt" 2>&1
done
# OLD=DIR: the same tunes with the templates of DIR (a before-and-after in
# one call), limited to OLD_ONLY.
if [ -n "${OLD:-}" ]; then
  for shape in ${SHAPES:-512,32,8,128,512 2048,32,8,128,2048 2048,32,8,64,2048}; do
    vktune attention_prefill --device 0 --shape $shape --strategy exhaustive --time ${SECONDS_EACH:-100}s --templates "$OLD" \
      --seed 15 --top 5 --only MMA=1 ${OLD_ONLY:+--only $OLD_ONLY} --db "$OUT/prefill_old.db" > "$OUT/old_${shape//,/x}.txt" 2>&1
  done
fi
# The winners' table with each winner's measured error.
vktune export --db "$OUT/prefill.db" > "$OUT/table.json" 2> "$OUT/export.err"
