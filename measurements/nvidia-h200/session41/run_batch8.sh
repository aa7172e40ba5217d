#!/bin/bash
# Session 41, call 1: MobileNet V2's chain at batch 8 (224x224), never
# measured before: every layer on its spec's baseline, then every distinct
# batch-8 layer shape tuned (the stem, 10 depthwise, 19 pointwise, 5 residual
# adds; shapes from workloads/vision/mobilenet_layers.cpp's network), then the
# chain on the winners with --check. One GPU.
set -u
source measurements/device_env.sh
db=/tmp/mn8.db
chain() {  # log [args]
  local log=$1; shift
  vktune mobilenet --device 0 --db $db --batch 8 --samples 31 "$@" > "$OUT/$log" 2>&1; echo "== exit $?" >> "$OUT/$log"
}
tune() {  # spec seconds shapes...
  local spec=$1 seconds=$2; shift 2
  local args=(); for s in "$@"; do args+=(--shape "$s"); done
  vktune "$spec" --device 0 --seed 41 --top 3 --db $db --time ${seconds}s "${args[@]}" > /tmp/t.txt 2>&1
  { echo "== $spec ${seconds}s exit $?"; grep -E "winner|^ +1  |failed|budget" /tmp/t.txt | cut -c1-240; } >> "$OUT/tunes.txt"
  cp /tmp/t.txt "$OUT/tune_$(basename $spec .json).txt"
}
chain chain_baseline.txt --baseline
tune examples/mobilenet_stem/stem.json ${STEM_S:-25} 8,224,224,3,32,2,112,112
tune examples/mobilenet_depthwise/depthwise.json ${DW_S:-110} 8,112,112,32,1,112,112 8,112,112,96,2,56,56 \
  8,56,56,144,1,56,56 8,56,56,144,2,28,28 8,28,28,192,1,28,28 8,28,28,192,2,14,14 8,14,14,384,1,14,14 \
  8,14,14,576,1,14,14 8,14,14,576,2,7,7 8,7,7,960,1,7,7
tune examples/mobilenet_pointwise/pointwise.json ${PW_S:-290} 100352,32,16,1 100352,16,96,2 25088,96,24,1 \
  25088,24,144,2 25088,144,24,1 6272,144,32,1 6272,32,192,2 6272,192,32,1 1568,192,64,1 1568,64,384,2 \
  1568,384,64,1 1568,384,96,1 1568,96,576,2 1568,576,96,1 392,576,160,1 392,160,960,2 392,960,160,1 \
  392,960,320,1 392,320,1280,2
tune add ${ADD_S:-30} 25088,24 6272,32 1568,64 1568,96 392,160
chain chain_tuned.txt --check
vktune export --db $db > "$OUT/mobilenet_b8_table.json" 2>> "$OUT/tunes.txt"
