#!/bin/bash
# Session 16: depthwise 3x3 at MobileNet's 112x112x96 stride-2 layer with
# channel groups per workgroup that tile C = 96 exactly (WG_X 24 and 48 added
# to the spec's values, a copy in exp/dw), against the committed spec, in one
# call on one GPU. SECONDS each, fresh databases.
set -u
source results/h200/session12/device_env.sh
for shape in 8,112,112,96,2,56,56 1,112,112,96,2,56,56; do
  for spec in exp/dw/depthwise.json examples/mobilenet_depthwise/depthwise.json; do
    db=/tmp/$(basename $(dirname $spec)).db
    vktune $spec --device 0 --shape $shape --time ${SECONDS_EACH:-60}s --seed 16 --top 5 --db $db > /tmp/t.txt 2>&1
    { echo "== $spec $shape"; grep -A6 "rank " /tmp/t.txt | cut -c1-200; grep -E "winner .* vs" /tmp/t.txt | head -1; } \
      >> "$OUT/dw.txt"
  done
done
