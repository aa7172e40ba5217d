#!/bin/bash
# Session 19: X_SCOPE=1 (each slot quantizes the x of its own units as it
# walks them, subgroup barriers only) against X_SCOPE=0 (the workgroup
# quantizes X_SEGMENT values between barriers, then the slots walk), at
# issue 20's decode targets, hot: exhaustive over a neighbourhood of the
# session-18 winners with both scopes, fixed seed, one database per shape.
# Run from the repository root with .gl, .dist/bin and .dist/lib carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
N="--only X_QUANT=1 --only COLS_PER_PASS=1 --only X_SCOPE=0,1 --only WG_SIZE=128,256,512 --only ROWS_PER_WG=16,32 --only THREADS_PER_ROW=16,32 --only UNROLL=1,2"
for run in "matmul_q6k|1,4096,4096|--only SUPER_BLOCK=1" "matmul_q6k|1,14336,4096|--only SUPER_BLOCK=1" \
  "matmul_q6k|1,4096,14336|--only SUPER_BLOCK=1" "matmul_q8_0|1,4096,4096|--only BLOCK_PAIRS=1" \
  "matmul_q8_0|1,14336,4096|--only BLOCK_PAIRS=1" "matmul_q8_0|1,4096,14336|--only BLOCK_PAIRS=1" \
  "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1"; do
  IFS='|' read -r k shape only <<< "$run"
  vktune $k --device ${DEV:-0} --shape $shape --cache hot $N $only --strategy exhaustive --no-transfer \
    --seed 19 --top 6 --db $T/${k}_$shape.db > $T/t.txt 2>&1
  { echo "== $k $shape exit $?"; grep -E "^ +[1-6] +[0-9.]+ |evaluated|winner" $T/t.txt | cut -c1-250; } >> "$OUT/slot_x.txt"
done
