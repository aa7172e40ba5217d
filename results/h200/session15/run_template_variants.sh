#!/bin/bash
# Session 15: the tensor-core path's template versions side by side in one
# call (one GPU). Arguments NAME=DIR: each a full templates folder; every
# version is tuned exhaustively over the same configs (ONLY, default MMA=1)
# at SHAPES, SECONDS_EACH per shape, fresh databases.
set -u
source results/h200/session12/device_env.sh
for shape in ${SHAPES:-2048,32,8,128,2048}; do
  for arg in "$@"; do
    name=${arg%%=*}; dir=${arg#*=}
    vktune attention_prefill --device 0 --shape $shape --strategy exhaustive --time ${SECONDS_EACH:-40}s \
      --templates "$dir" --seed 15 --top 4 --only ${ONLY:-MMA=1} ${ONLY2:+--only $ONLY2} --db "/tmp/$name.db" \
      > "$OUT/${name}_${shape//,/x}.txt" 2>&1
    echo "== $name $shape" >> "$OUT/summary.txt"
    grep -A4 "rank " "$OUT/${name}_${shape//,/x}.txt" | cut -c1-150 >> "$OUT/summary.txt"
    grep -E "x wrong|failed\)" "$OUT/${name}_${shape//,/x}.txt" | head -3 >> "$OUT/summary.txt"
  done
done
