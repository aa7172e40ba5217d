#!/bin/bash
# Session 18: issue 20's decode targets on an H200, hot caches (the issue's
# figures are hot-for-hot against llama.cpp): matmul_q6k and matmul_q8_0 at
# their three decode shapes, matmul_q4_0 at 1×4096×14336, tuned from a fresh
# database (the committed templates and spaces; the search's own transfer
# between these shapes only), then a Google Benchmark report of the winners.
# Run from the repository root with .gl, .dist/bin/vktune, .dist/bin/vktune-bench and .dist/lib.
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)  # this run's databases and logs (runs on several GPUs go side by side)
S="--shape 1,4096,4096 --shape 1,14336,4096 --shape 1,4096,14336"
for run in "matmul_q6k:$S:${Q6_SECONDS:-75}" "matmul_q8_0:$S:${Q8_SECONDS:-60}" "matmul_q4_0:--shape 1,4096,14336:${Q4_SECONDS:-25}"; do
  IFS=: read -r k shapes seconds <<< "$run"
  vktune $k --device ${DEV:-0} $shapes --cache hot --time ${seconds}s --seed 18 --top 3 --db $T/dec.db > $T/t.txt 2>&1
  { echo "== $k exit $?"; grep -E "winner .* vs|^ +1  " $T/t.txt | cut -c1-220; } >> "$OUT/decode.txt"
done
vktune bench --db $T/dec.db --device ${DEV:-0} --cache hot -- --benchmark_format=json > "$OUT/decode_bench.json" 2>> "$OUT/decode.txt"
vktune export --db $T/dec.db > "$OUT/decode_table.json" 2>> "$OUT/decode.txt"
