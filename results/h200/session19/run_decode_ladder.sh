#!/bin/bash
# Session 19: what limits the integer-dot decode walk (issue 20's 1.5x
# llama.cpp targets), hot caches as the targets are. For each target shape
# the session-18 H200 winner (h200_decode_targets) runs as committed (D0,
# .dist/bin/vktune) and with one stage left out (D1..D6, exp/bin/vktune on
# the template copies make_decode_ladder.py writes; that binary is this
# commit with tolerance_decode.patch). One variant each (--only pins every
# parameter), exhaustive, fixed seed, fresh databases. Run from the
# repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)  # this run's databases and logs (runs on several GPUs go side by side)
EXTRA_PINS="--only X_SCOPE=0" source results/h200/session19/decode_winners.sh
for run in "${RUNS[@]}"; do
  IFS='|' read -r k shape only <<< "$run"
  stages="D0 D1 D2 D3 D4"
  [ $k = matmul_q6k ] && stages="$stages D5 D6"
  for e in $stages; do
    if [ $e = D0 ]; then bin=.dist/bin/vktune; t=""; else bin=exp/bin/vktune; t="--templates exp/$e"; fi
    $bin $k --device ${DEV:-0} --shape $shape --cache hot $only $t --strategy exhaustive --no-transfer --seed 19 \
      --top 1 --db $T/dl_$e.db > $T/t.txt 2>&1
    { echo "== $e $k $shape exit $?"; grep -E "^ +1 +[0-9.]+ |evaluated" $T/t.txt | cut -c1-120; } >> "$OUT/decode_ladder.txt"
  done
done
vktune devices --remeasure --device ${DEV:-0} --db $T/ceil.db > "$OUT/ceilings.txt" 2>&1
