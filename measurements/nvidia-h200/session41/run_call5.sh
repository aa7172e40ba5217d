#!/bin/bash
# Session 41, call 5: a new user's one command on an empty database:
# `vktune mobilenet --batch 8 --tune 180s --check` (the network's 35
# distinct batch-8 layer shapes tuned under one budget, then the chain).
set -u
source measurements/device_env.sh
vktune mobilenet --device 0 --db /tmp/new.db --batch 8 --tune ${TUNE:-180s} --samples 31 --check \
  > "$OUT/mobilenet_tune_b8.txt" 2> "$OUT/mobilenet_tune_b8.err"
echo "== exit $?" >> "$OUT/mobilenet_tune_b8.txt"
