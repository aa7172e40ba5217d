#!/bin/bash
# Session 38, issue 42 item 6, call 1: the H200 table's fifteen quantized
# M = 512 winners (DEQUANT_STAGE=1, session 36) re-tuned on the path session
# 37 added (DEQUANT_STAGE=2), each kernel at its three shapes, exhaustive
# over session 37's neighbourhood (DQ_WG=256 DQ_RUN=8, TILE_M=128, TILE_N
# 128 or 256, TILE_K 32 or 64, every CM_SHAPE and warp layout), cold
# weights. The committed table is imported first; the database is exported
# whole for freshest.py, which takes a new winner only where it is faster
# (the replaced ones are listed in the README).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
rm -f /tmp/t.db*
vktune --version > "$OUT/version.txt" 2>&1
vktune import measurements/nvidia-h200/table.json --db /tmp/t.db >> "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
common="--only USE_COOPMAT=1 --only DEQUANT_STAGE=2 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 --only TILE_N=128,256 --only TILE_K=32,64 --strategy exhaustive --seed 38"
for k in matmul_q4k matmul_q6k matmul_q4_0 matmul_q5k matmul_q8_0; do
  start=$(date +%s)
  timeout 100 vktune $k --device 0 -s 512,4096,4096 -s 512,4096,14336 -s 512,14336,4096 $common --time 88s \
    --db /tmp/t.db > "$OUT/tune_$k.txt" 2> "$OUT/tune_$k.stderr.txt"
  stamp "tune $k" $?
done
vktune export --db /tmp/t.db -o "$OUT/export_all.json" >> "$OUT/log.txt" 2>&1
echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/export_all.json"
