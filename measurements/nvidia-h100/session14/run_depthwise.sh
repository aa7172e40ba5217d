#!/bin/bash
# Session 14: MobileNet V2's depthwise 3×3 convolutions as a spec
# (examples/mobilenet_depthwise): the gate's covering array at the default
# shapes on this GPU, then a tune of all ten default shapes (3 minutes for
# all, seed 14), fresh database. Run from the repository root.
set -u
source measurements/device_env.sh
S=examples/mobilenet_depthwise/depthwise.json
( time vktune check $S --device 0 --variants covering --shapes default ) > /tmp/check.txt 2>&1
echo "check exit $?" >> "$OUT/depthwise.txt"
grep -E "checked|passed|failed|real" /tmp/check.txt | tail -14 >> "$OUT/depthwise.txt"
vktune $S --device 0 --time 3m --seed 14 --top 3 --db /tmp/dw.db > /tmp/tune.txt 2>&1
echo "tune exit $?" >> "$OUT/depthwise.txt"
grep -E "^\s+[0-9]+ +[0-9.]+ |winner|space:|ceilings" /tmp/tune.txt | cut -c1-220 >> "$OUT/depthwise.txt"
vktune export --db /tmp/dw.db -o "$OUT/depthwise_table.json" >> "$OUT/depthwise.txt" 2>&1
