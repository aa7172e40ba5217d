#!/bin/bash
# Session 37, issue 42 items 2-3: the quantized prefill spaces' tiles of 256
# (TILE_M and TILE_N {32, 64, 128, 256}; matmul_f16's tensor-core winners
# take 128x256). matmul_q4k at the three M = 512 shapes, the
# dequantize-first path (DEQUANT_STAGE=1; DQ_WG=256 DQ_RUN=8, the committed
# winners' dequantizing dispatch): first the 128x128 neighbourhood of the
# committed winners (control), then tiles with a side of 256, each
# exhaustively, cold weights, one database per run.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
common="--only DEQUANT_STAGE=1 --only DQ_WG=256 --only DQ_RUN=8 --only TILE_K=32,64 --strategy exhaustive --seed 37"
for shape in 512,14336,4096 512,4096,14336 512,4096,4096; do
  for arm in t128 t256; do
    case $arm in
      t128) tiles="--only TILE_M=128 --only TILE_N=128" ;;
      t256) tiles="--only TILE_M=128,256 --only TILE_N=256" ;;
    esac
    start=$(date +%s)
    rm -f /tmp/t_$arm.db*
    timeout 110 vktune matmul_q4k --device 0 -s $shape $common $tiles --time 95s --db /tmp/t_$arm.db \
      > "$OUT/tune_${shape}_$arm.txt" 2> "$OUT/tune_${shape}_$arm.stderr.txt"
    echo "$arm $shape exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
  done
done
