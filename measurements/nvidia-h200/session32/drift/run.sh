#!/usr/bin/env bash
# Issue 42 item 6 on an H200: each committed table imported into an empty
# database (`vktune import TABLE --db .dist/db/TAG.db`, done before the call:
# import needs no device) and its winners timed against their stored times,
#   vktune-bench --device 0 --db TAG.db --max-drift 10 --benchmark_filter=/winner/
# (what `vktune bench --db TAG.db --max-drift 10 -- --benchmark_filter=/winner/`
# runs; winners only). Usage (repository root; .dist and .gl carried, OUT set):
#   bash measurements/nvidia-h200/session32/drift/run.sh TAG...
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
res=/tmp/drift
mkdir -p "$res"
nvidia-smi -L >"$res/gpu.txt" 2>&1
for tag in "$@"; do
  start=$(date +%s)
  vktune-bench --device 0 --db ".dist/db/$tag.db" --max-drift 10 --benchmark_filter=/winner/ \
    --benchmark_format=json --benchmark_out="$res/$tag.bench.json" >"$res/$tag.bench.txt" 2>"$res/$tag.drift.txt"
  echo "$tag: exit $? wall $(( $(date +%s) - start )) s" >>"$res/log.txt"
  tar czf "$OUT/drift.tgz" -C "$res" .
done
