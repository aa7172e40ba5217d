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
source results/h200/session19/decode_winners.sh
for run in "${RUNS[@]}"; do
  IFS='|' read -r k shape only <<< "$run"
  for r in R0 R1 R2; do
    t=""; [ $r != R0 ] && t="--templates exp/$r"
    vktune $k --device ${DEV:-0} --shape $shape --cache hot $only $t --strategy exhaustive --no-transfer --seed 19 \
      --top 1 --db $T/$r.db > $T/t.txt 2>&1
    { echo "== $r $k $shape exit $?"; grep -E "^ +1 +[0-9.]+ " $T/t.txt | cut -c1-60; } >> "$OUT/restrict.txt"
  done
done
