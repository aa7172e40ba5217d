#!/usr/bin/env bash
# Issue 41: how fast a grid that walks rows reads them, by row length and
# count (row_read.json), at the shapes of the decode products: ffn_down's
# 4096 rows of Q6_K (735 vectors of 16 bytes) and Q4_K (504) and the same
# bytes split into more, shorter rows (as a split along K would read them),
# gate+up's 28672 rows of 144, attn_output's 4096 of 144 and the output
# head's 128256 of 210. Each shape tuned exhaustively (72 configs), cold
# weights (rotated copies), empty database, one GPU, one call.
# Usage (repository root; .dist and .gl carried, OUT set):
#   bash measurements/nvidia-h200/session32/row_read/run.sh
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
res=/tmp/row_read
mkdir -p "$res"
nvidia-smi -L >"$res/gpu.txt" 2>&1
vktune devices --json >"$res/devices.json" 2>&1
spec=measurements/nvidia-h200/session32/row_read/row_read.json
for shape in 4096,735 12288,245 28672,105 61440,49 4096,504 16384,126 32768,63 28672,144 4096,144 128256,210; do
  start=$(date +%s)
  vktune "$spec" --device 0 --shape "$shape" --db "$res/row_read.db" --json --seed 3 \
    >"$res/$shape.json" 2>"$res/$shape.stderr.txt"
  echo "$shape exit $? wall $(( $(date +%s) - start )) s" >>"$res/log.txt"
  tar czf "$OUT/row_read.tgz" -C "$res" .
done
