#!/bin/bash
# Session 37, issue 42 items 2-4: DEQUANT_STAGE=2 (x rounded to fp16 by a
# dispatch of its own behind W16; the GEMM stages 16-byte chunks of both
# with the next slice in flight) against DEQUANT_STAGE=1, one H200, each
# exhaustive over the same neighbourhood (DQ_WG=256 DQ_RUN=8, TILE_M=128,
# TILE_N 128 or 256, TILE_K 32 or 64, every CM_SHAPE and warp layout),
# cold weights, one database per run: matmul_q4k at the three M = 512
# shapes, matmul_q6k and matmul_q8_0 at 512,14336,4096.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
common="--only DQ_WG=256 --only DQ_RUN=8 --only TILE_M=128 --only TILE_N=128,256 --only TILE_K=32,64 --strategy exhaustive --seed 37"
run() {  # kernel shape stage
  local start=$(date +%s)
  rm -f /tmp/x$3.db*
  timeout 100 vktune $1 --device 0 -s $2 $common --only DEQUANT_STAGE=$3 --time 85s --db /tmp/x$3.db \
    > "$OUT/tune_$1_$2_stage$3.txt" 2> "$OUT/tune_$1_$2_stage$3.stderr.txt"
  echo "$1 $2 DEQUANT_STAGE=$3 exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
for shape in 512,14336,4096 512,4096,14336 512,4096,4096; do
  run matmul_q4k $shape 1
  run matmul_q4k $shape 2
done
for k in matmul_q6k matmul_q8_0; do
  run $k 512,14336,4096 1
  run $k 512,14336,4096 2
done
