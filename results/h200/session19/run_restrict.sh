#!/bin/bash
# Session 19: whether `restrict` on the walk's x (exp/R1, include/matmul_xy.glsl)
# and also on its weights (exp/R2, matvec_q6k_q8.comp and matvec_q4_0_q8.comp)
# lets the driver read them through the non-coherent path, so that the
# workgroups of one SM share x in L1. The decode targets' session-18
# winners as in run_decode_ladder.sh (R0 = the committed templates), hot.
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
COMMON="--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only UNROLL=1 --only W_STAGE=0 --only X_QUANT=1"
Q6="$COMMON --only SUPER_BLOCK=1"
Q8="$COMMON --only BLOCK_PAIRS=1 --only THREADS_PER_ROW=32 --only WG_SIZE=256"
for run in \
  "matmul_q6k|1,4096,4096|$Q6 --only THREADS_PER_ROW=16 --only WG_SIZE=256 --only X_SEGMENT=4096" \
  "matmul_q6k|1,14336,4096|$Q6 --only THREADS_PER_ROW=8 --only WG_SIZE=128 --only X_SEGMENT=4096" \
  "matmul_q6k|1,4096,14336|$Q6 --only THREADS_PER_ROW=32 --only WG_SIZE=256 --only X_SEGMENT=16384" \
  "matmul_q8_0|1,4096,4096|$Q8 --only X_SEGMENT=4096" \
  "matmul_q8_0|1,14336,4096|$Q8 --only X_SEGMENT=4096" \
  "matmul_q4_0|1,4096,14336|$Q8 --only X_SEGMENT=16384"; do
  IFS='|' read -r k shape only <<< "$run"
  for r in R0 R1 R2; do
    t=""; [ $r != R0 ] && t="--templates exp/$r"
    vktune $k --device ${DEV:-0} --shape $shape --cache hot $only $t --strategy exhaustive --no-transfer --seed 19 \
      --top 1 --db $T/$r.db > $T/t.txt 2>&1
    { echo "== $r $k $shape exit $?"; grep -E "^ +1 +[0-9.]+ " $T/t.txt | cut -c1-60; } >> "$OUT/restrict.txt"
  done
done
