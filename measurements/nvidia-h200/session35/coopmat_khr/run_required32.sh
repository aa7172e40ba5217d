#!/bin/bash
# Session 35, issue 43: every tensor-core plan now requires subgroups of 32
# (so that AMD RDNA, whose subgroups are 32 or 64, can run the tiles); on the
# H200 (subgroups 32..32, selectable) its tensor-core kernels still check.
set -u
source measurements/device_env.sh
: > "$OUT/log.txt"
start=$(date +%s)
timeout 150 vktune check matmul_f16 matmul_q4k attention_decode attention_prefill --device 0 --seed 37 \
  > "$OUT/check_required32.txt" 2> "$OUT/check_required32.stderr.txt"
echo "check exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
