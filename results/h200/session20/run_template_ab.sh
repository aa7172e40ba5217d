#!/bin/bash
# Session 20: template copies (exp/A1, exp/A2, ...) against the committed
# templates (A0) at issue 20's decode targets, hot: exhaustive over the
# X_SCOPE=1 neighbourhood of the H200 winners, fixed seed, one database per
# arm and shape, every arm in one call on one GPU.
#   ARMS     the arms, in order (default "A0 A1")
#   KERNELS  the kernels whose targets run (default all three)
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
N="--only X_QUANT=1 --only COLS_PER_PASS=1 --only X_SCOPE=1 --only WG_SIZE=128,256,512 --only ROWS_PER_WG=16,32 --only THREADS_PER_ROW=16,32 --only UNROLL=1,2"
for run in "matmul_q6k|1,4096,4096|--only SUPER_BLOCK=1" "matmul_q6k|1,14336,4096|--only SUPER_BLOCK=1" \
  "matmul_q6k|1,4096,14336|--only SUPER_BLOCK=1" "matmul_q8_0|1,4096,4096|--only BLOCK_PAIRS=1" \
  "matmul_q8_0|1,14336,4096|--only BLOCK_PAIRS=1" "matmul_q8_0|1,4096,14336|--only BLOCK_PAIRS=1" \
  "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1"; do
  IFS='|' read -r k shape only <<< "$run"
  [[ " ${KERNELS:-matmul_q6k matmul_q8_0 matmul_q4_0} " == *" $k "* ]] || continue
  for a in ${ARMS:-A0 A1}; do
    t=""; [ $a != A0 ] && t="--templates exp/$a"
    vktune $k --device ${DEV:-0} --shape $shape --cache hot $N $only $t --strategy exhaustive --no-transfer \
      --seed 20 --top 4 --db $T/${a}_${k}_$shape.db > $T/t.txt 2>&1
    { echo "== $a $k $shape exit $?"; grep -E "^ +[1-4] +[0-9.]+ |evaluated|winner" $T/t.txt | cut -c1-250; } >> "$OUT/template_ab.txt"
  done
done
