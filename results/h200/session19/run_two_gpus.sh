#!/bin/bash
# Session 19, for a machine of two H200s: the session's H200 work side by
# side, and each tuned table benched on the other physical GPU.
#   GPU 0: the fp16-mode specs' tables (issue 21), then the decode ladder.
#   GPU 1: the decode targets tuned again (this commit's templates and
#          spaces: batched x quantization, WG_SIZE 512), then the committed
#          table and session 18's decode table benched (reproduction on a GPU
#          they were not tuned on).
#   Then GPU 0 benches GPU 1's new decode table.
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source results/h200/session12/device_env.sh
S=results/h200/session19
mkdir -p "$OUT/g0" "$OUT/g1"
( DEV=0 OUT=$OUT/g0 bash results/h200/session18/run_fp16_specs.sh
  DEV=0 OUT=$OUT/g0 timeout 170 bash $S/run_decode_ladder.sh ) &
( DEV=1 OUT=$OUT/g1 bash results/h200/session18/run_decode_targets.sh
  DEV=1 OUT=$OUT/g1 timeout 220 bash $S/run_reproduce.sh ) &
wait
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
vktune import "$OUT/g1/decode_table.json" --db $T/hot.db > "$OUT/g0/reproduce_g1_decode.txt" 2>&1
for k in matmul_q6k matmul_q8_0 matmul_q4_0; do
  vktune bench $k --device 0 --db $T/hot.db --cache hot -- --benchmark_format=json \
    > "$OUT/g0/bench_hot_g1_$k.json" 2>> "$OUT/g0/reproduce_g1_decode.txt"
done
