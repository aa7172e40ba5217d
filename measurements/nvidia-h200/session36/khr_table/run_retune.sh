#!/bin/bash
# Session 36, issue 42 item 6: the H200 table's tensor-core winners
# (matmul_f16's four prefill shapes, the fifteen quantized M = 512 products)
# re-tuned with KHR cooperative matrices, the default on the H200 since
# session 35, and matmul_q6k 1,4096,14336 (the decode winner session 34's
# drift check found 22% slow). The committed table is imported first, so its
# NV-tuned winners enter each search as transfer seeds and are measured again
# as KHR modules; the whole database is exported for freshest.py.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
s=measurements/nvidia-h200
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
rm -f /tmp/t.db*
vktune --version > "$OUT/version.txt" 2>&1
vktune import $s/table.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
start=$(date +%s)
timeout 140 vktune matmul_f16 --device 0 -s 512,4096,4096 -s 512,4096,14336 -s 512,14336,4096 -s 4096,4096,4096 \
  --only USE_COOPMAT=1 --time 125s --seed 36 --db /tmp/t.db > "$OUT/tune_matmul_f16.txt" 2> "$OUT/tune_matmul_f16.stderr.txt"
stamp "tune matmul_f16" $?
for k in matmul_q4k matmul_q6k matmul_q4_0 matmul_q5k matmul_q8_0; do
  start=$(date +%s)
  timeout 75 vktune $k --device 0 -s 512,4096,4096 -s 512,4096,14336 -s 512,14336,4096 --only USE_COOPMAT=1 \
    --time 62s --seed 36 --db /tmp/t.db > "$OUT/tune_$k.txt" 2> "$OUT/tune_$k.stderr.txt"
  stamp "tune $k" $?
done
start=$(date +%s)
timeout 30 vktune matmul_q6k --device 0 -s 1,4096,14336 --time 20s --seed 36 --db /tmp/t.db \
  > "$OUT/tune_matmul_q6k_decode.txt" 2> "$OUT/tune_matmul_q6k_decode.stderr.txt"
stamp "tune matmul_q6k 1,4096,14336" $?
vktune export --db /tmp/t.db -o "$OUT/export_all.json" >> "$OUT/log.txt" 2>&1
echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/export_all.json"
