#!/bin/bash
# Session 35, issue 42 item 3 with KHR cooperative matrices (the default on
# the H200 since this session): the fp16 products and the largest Q4_K
# prefill product tuned again from an empty database, and their winners
# exported; each tune's winner against the NV-tuned committed winner's KHR
# twin (call 1 of ../coopmat_khr/: 623.1 µs at 4096³, 258.4 at
# 512,4096,14336, 464.8 at matmul_q4k 512,14336,4096).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
rm -f /tmp/t.db*
start=$(date +%s)
timeout 260 vktune matmul_f16 --device 0 -s 4096,4096,4096 -s 512,4096,14336 --only USE_COOPMAT=1 --time 240s \
  --seed 35 --db /tmp/t.db > "$OUT/tune_f16.txt" 2> "$OUT/tune_f16.stderr.txt"
stamp "tune matmul_f16" $?
start=$(date +%s)
timeout 200 vktune matmul_q4k --device 0 -s 512,14336,4096 --only USE_COOPMAT=1 --time 180s --seed 35 --db /tmp/t.db \
  > "$OUT/tune_q4k.txt" 2> "$OUT/tune_q4k.stderr.txt"
stamp "tune matmul_q4k" $?
vktune export --db /tmp/t.db -o "$OUT/khr_winners.json" >> "$OUT/log.txt" 2>&1
echo "export exit $?" >> "$OUT/log.txt"
