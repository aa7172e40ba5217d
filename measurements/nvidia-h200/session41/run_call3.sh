#!/bin/bash
# Session 41, call 3: the shapes calls 1 and 2 left on their baseline or with
# a few variants, each tuned alone, with a clock gauge 4x longer
# (engine/clock_probe.cpp) and the tune's text counting the warm-ups that
# ended without the full clock. Call 2's winners imported first
# (call2/mobilenet_table.json); then the chain at batch 8 and at batch 1,
# checked, and every winner exported.
set -u
source measurements/device_env.sh
db=/tmp/mn.db
here=measurements/nvidia-h200/session41
vktune import --db $db $here/call2/mobilenet_table.json > "$OUT/import.txt" 2>&1
chain() {  # log batch [args]
  local log=$1 batch=$2; shift 2
  vktune mobilenet --device 0 --db $db --batch $batch --samples 31 "$@" > "$OUT/$log" 2>&1; echo "== exit $?" >> "$OUT/$log"
}
tune() {  # spec seconds shapes...
  local spec=$1 seconds=$2; shift 2
  local args=(); for s in "$@"; do args+=(--shape "$s"); done
  { echo "#### $spec ${seconds}s $*"; vktune "$spec" --device 0 --seed 41 --top 3 --db $db --time ${seconds}s "${args[@]}" 2>&1;
    echo "== exit $?"; } >> "$OUT/tunes.txt"
}
pw=examples/mobilenet_pointwise/pointwise.json
tune $pw ${PW_S:-40} 392,960,160,1
tune $pw ${PW_S:-40} 392,320,1280,2
tune $pw ${PW_S:-40} 1568,576,96,1
tune $pw ${PW1_S:-45} 3136,144,24,1 49,960,160,1 49,960,320,1 49,320,1280,2
tune examples/mobilenet_depthwise/depthwise.json ${DW_S:-20} 1,28,28,192,2,14,14 1,14,14,384,1,14,14
tune add ${ADD_S:-16} 784,32 196,64 196,96 49,160
chain chain_b8.txt 8 --check
chain chain_b1.txt 1 --check
vktune export --db $db > "$OUT/mobilenet_table.json" 2>> "$OUT/import.txt"
