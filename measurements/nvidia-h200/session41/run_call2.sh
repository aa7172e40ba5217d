#!/bin/bash
# Session 41, call 2: MobileNet V2's chain at batch 8 and batch 1 on one H200,
# with the timer's clock-plateau warm-up (harness/timer.cpp). Call 1's
# batch-8 winners imported first (batch8/mobilenet_b8_table.json); the
# pointwise layers at batch 8 tuned again (call 1 left 2 of 19 on their
# baseline and most late shapes with 1-4 variants: their warm-ups took 1 s
# each); the chain at batch 8 checked. Then every distinct batch-1 layer
# shape tuned and the chain at batch 1 checked; the winners of both exported.
set -u
source measurements/device_env.sh
db=/tmp/mn.db
here=measurements/nvidia-h200/session41
vktune import --db $db $here/batch8/mobilenet_b8_table.json > "$OUT/import.txt" 2>&1
chain() {  # log batch [args]
  local log=$1 batch=$2; shift 2
  vktune mobilenet --device 0 --db $db --batch $batch --samples 31 "$@" > "$OUT/$log" 2>&1; echo "== exit $?" >> "$OUT/$log"
}
tune() {  # log spec seconds shapes...
  local log=$1 spec=$2 seconds=$3; shift 3
  local args=(); for s in "$@"; do args+=(--shape "$s"); done
  vktune "$spec" --device 0 --seed 41 --top 3 --db $db --time ${seconds}s "${args[@]}" > "$OUT/$log" 2>&1
  echo "== exit $?" >> "$OUT/$log"
}
tune tune_b8_pointwise.txt examples/mobilenet_pointwise/pointwise.json ${PW8_S:-230} 100352,32,16,1 100352,16,96,2 \
  25088,96,24,1 25088,24,144,2 25088,144,24,1 6272,144,32,1 6272,32,192,2 6272,192,32,1 1568,192,64,1 \
  1568,64,384,2 1568,384,64,1 1568,384,96,1 1568,96,576,2 1568,576,96,1 392,576,160,1 392,160,960,2 \
  392,960,160,1 392,960,320,1 392,320,1280,2
chain chain_b8.txt 8 --check
tune tune_b1_stem.txt examples/mobilenet_stem/stem.json ${STEM_S:-15} 1,224,224,3,32,2,112,112
tune tune_b1_depthwise.txt examples/mobilenet_depthwise/depthwise.json ${DW_S:-60} 1,112,112,32,1,112,112 \
  1,112,112,96,2,56,56 1,56,56,144,1,56,56 1,56,56,144,2,28,28 1,28,28,192,1,28,28 1,28,28,192,2,14,14 \
  1,14,14,384,1,14,14 1,14,14,576,1,14,14 1,14,14,576,2,7,7 1,7,7,960,1,7,7
tune tune_b1_pointwise.txt examples/mobilenet_pointwise/pointwise.json ${PW1_S:-150} 12544,32,16,1 12544,16,96,2 \
  3136,96,24,1 3136,24,144,2 3136,144,24,1 784,144,32,1 784,32,192,2 784,192,32,1 196,192,64,1 196,64,384,2 \
  196,384,64,1 196,384,96,1 196,96,576,2 196,576,96,1 49,576,160,1 49,160,960,2 49,960,160,1 49,960,320,1 \
  49,320,1280,2
tune tune_b1_add.txt add ${ADD_S:-15} 3136,24 784,32 196,64 196,96 49,160
chain chain_b1.txt 1 --check
vktune export --db $db > "$OUT/mobilenet_table.json" 2>> "$OUT/import.txt"
