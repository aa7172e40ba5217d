#!/bin/bash
# Session 13: matmul_q4k before (.cmp/old/vktune, commit 20fe81a: its own
# kernel file, templates matvec_q4k.comp, matvec_q4k_q8.comp with
# THREADS_PER_BLOCK 4/8/16, matmul_q4k.comp) and after it joined the
# quantized family (.cmp/new/vktune: matvec_quant*.comp, SUPER_BLOCK=1 on
# matvec_q4k_q8.comp, matmul_quant.comp), each path tuned over its pruned
# space with the same budget and seed (cold). Writes winners.txt. Run from
# the repository root with .gl and .cmp carried.
set -u
source "$(dirname "$0")/cmp_env.sh"
for t in old new; do
  bin=.cmp/$t/vktune
  $bin matmul_q4k --device 0 --shape 1,4096,4096 --shape 1,14336,4096 --only X_QUANT=0 --no-transfer --seed 1 \
    --time 50s --db /tmp/${t}_fp32.db > /tmp/${t}_fp32.log 2>&1
  $bin matmul_q4k --device 0 --shape 1,4096,4096 --shape 1,14336,4096 --only X_QUANT=1 --no-transfer --seed 1 \
    --time 50s --db /tmp/${t}_q8.db > /tmp/${t}_q8.log 2>&1
  $bin matmul_q4k --device 0 --shape 512,4096,4096 --only USE_COOPMAT=0 --no-transfer --seed 1 \
    --time 40s --db /tmp/${t}_tiles.db > /tmp/${t}_tiles.log 2>&1
  for p in fp32 q8 tiles; do
    echo "$t $p exit $?" >> "$OUT/log.txt"
    $bin export --db /tmp/${t}_$p.db -o /tmp/${t}_$p.json
  done
done
args=()
for t in old new; do for p in fp32 q8 tiles; do args+=("$t-$p=/tmp/${t}_$p.json"); done; done
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" "${args[@]}"
