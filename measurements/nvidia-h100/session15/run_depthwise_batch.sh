#!/bin/bash
# Session 15: what limits depthwise 3x3 at MobileNet's 112x112x96 stride-2
# layer (the 60%-of-read target): the same layer at batch 1 and batch 8,
# tuned SECONDS each (seed 15), fresh database.
set -u
source measurements/device_env.sh
for shape in 1,112,112,96,2,56,56 8,112,112,96,2,56,56; do
  vktune examples/mobilenet_depthwise/depthwise.json --device 0 --shape $shape --time ${SECONDS_EACH:-45}s --seed 15 \
    --top 3 --db /tmp/dw.db > "$OUT/dw_${shape//,/x}.txt" 2>&1
  grep -A3 "rank " "$OUT/dw_${shape//,/x}.txt" | cut -c1-160 >> "$OUT/summary.txt"
done
vktune devices --remeasure --device 0 --db /tmp/dw.db > "$OUT/devices.txt" 2>&1
