#!/bin/bash
# Session 20: what limits the slot-scope decode walk (X_SCOPE=1, every H200
# decode winner since session 19), hot as issue 20's targets are. Each
# target's session-19 H200 winner (slot_winners.sh) runs as committed (D0,
# .dist/bin/vktune) and with stages left out (exp/bin/vktune, built with
# session19/tolerance_decode.patch, on the copies make_slot_ladder.py
# writes): S1 no x quantization, D2 loads only, D3 no weight loads, S4
# empty, S7 neither weight loads nor x quantization. One variant each
# (every parameter pinned; the baseline is timed too, and its line, X_SCOPE=0,
# is left out), exhaustive, fixed seed, fresh databases.
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
source results/h200/session20/slot_winners.sh
for run in "${RUNS[@]}"; do
  IFS='|' read -r k shape only <<< "$run"
  for e in D0 S1 D2 D3 S4 S7; do
    if [ $e = D0 ]; then bin=.dist/bin/vktune; t=""; else bin=exp/bin/vktune; t="--templates exp/$e"; fi
    $bin $k --device ${DEV:-0} --shape $shape --cache hot $only $t --strategy exhaustive --no-transfer --seed 20 \
      --top 2 --db $T/sl_$e.db > $T/t.txt 2>&1
    { echo "== $e $k $shape exit $?"; grep -E "^ +[12] +[0-9.]+ .*X_SCOPE=1|evaluated" $T/t.txt | cut -c1-160; } >> "$OUT/slot_ladder.txt"
  done
done
