#!/bin/bash
# Session 19: fewer, larger workgroups for the long-K decode shapes. Every
# workgroup of the integer-dot walk quantizes all of x (the ladder's D1:
# 3.2-4.2 us of the long-K shapes on an H100), so the x traffic is
# (N / ROWS_PER_WG) * K * 4 bytes. 512 invocations and 32 rows halve it at
# the same invocations per SM. exp/w512/vktune is this commit with WG_SIZE
# 512 in the decode space (wg512.patch). Exhaustive over a neighbourhood of
# the session-18 winners, hot, fixed seed. Run from the repository root with
# .gl, .dist/lib and exp/w512 carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
N="--only X_QUANT=1 --only COLS_PER_PASS=1 --only WG_SIZE=256,512 --only ROWS_PER_WG=16,32 --only THREADS_PER_ROW=16,32 --only UNROLL=1,2 --only X_SEGMENT=4096,16384"
for run in "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1" "matmul_q8_0|1,4096,14336|--only BLOCK_PAIRS=1" \
  "matmul_q6k|1,4096,14336|--only SUPER_BLOCK=1" "matmul_q6k|1,4096,4096|--only SUPER_BLOCK=1" \
  "matmul_q8_0|1,4096,4096|--only BLOCK_PAIRS=1"; do
  IFS='|' read -r k shape only <<< "$run"
  exp/w512/vktune $k --device 0 --shape $shape --cache hot $N $only --space full --strategy exhaustive --no-transfer \
    --seed 19 --top 5 --db /tmp/w512.db > /tmp/t.txt 2>&1
  { echo "== $k $shape exit $?"; grep -E "^ +[1-5] +[0-9.]+ |evaluated|winner" /tmp/t.txt | cut -c1-230; } >> "$OUT/wg512.txt"
done
