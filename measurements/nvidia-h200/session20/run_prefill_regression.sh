#!/bin/bash
# Session 20: the committed matmul_q4_0 and matmul_q8_0 prefill winners at
# 512x14336x4096 (128x128 tiles, 4x2 subgroups, CM_SHAPE 1) ran 1.67x and
# 1.78x their stored times on an H200 (h200_reproduce/), while every other
# prefill winner reproduced within 7%; session 10 had reproduced them on
# another H200. Which template change since then: the winners' configs
# timed with the templates as they were after each commit that touched the
# tensor-core quantized path (exp/T_<commit>, from `git archive`) and as
# committed (T_HEAD), cold as tuned; matmul_q4k's winner at that shape (128x128,
# 2x4, CM_SHAPE 2), which reproduced, as the control. Trees older than
# 11749e7 lack ceiling_coopmat.comp; session 20's call ran a vktune that
# measured a fresh database's ceilings with the --templates tree, and those
# arms exited 2. From da2adeb on the ceilings come from the embedded
# templates, so with a .dist built from it the old trees no longer fail for
# that reason (other differences with today's C++ may remain).
# The trees, made here before the call:
#   for c in 7353b02 145c31d 11749e7 ffb15a1 d58a069; do mkdir -p exp/T_$c
#     git archive $c templates | tar -x -C exp/T_$c --strip-components=1; done
# Run from the repository root with .gl, .dist/bin, .dist/lib and exp carried.
set -u
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
P="--only SUBGROUP_SIZE=0 --only THREAD_M=2 --only THREAD_N=2 --only TILE_K=32 --only TILE_M=128 --only TILE_N=128 --only USE_COOPMAT=1 --only DEQUANT_STAGE=0"
for run in "matmul_q4_0|--only CM_SHAPE=1 --only WARPS_M=4 --only WARPS_N=2" \
  "matmul_q8_0|--only CM_SHAPE=1 --only WARPS_M=4 --only WARPS_N=2" \
  "matmul_q4k|--only CM_SHAPE=2 --only WARPS_M=2 --only WARPS_N=4"; do
  IFS='|' read -r k only <<< "$run"
  for a in ${ARMS:-T_7353b02 T_145c31d T_11749e7 T_ffb15a1 T_d58a069 T_HEAD}; do
    t=""; [ $a != T_HEAD ] && t="--templates exp/$a"
    vktune $k --device ${DEV:-0} --shape 512,14336,4096 $P $only $t --strategy exhaustive --no-transfer \
      --seed 20 --top 2 --db $T/${a}_$k.db > $T/t.txt 2>&1
    { echo "== $a $k exit $?"; grep -E "^ +[12] +[0-9.]+ .*USE_COOPMAT=1|evaluated" $T/t.txt | cut -c1-200
      vktune results --failures --db $T/${a}_$k.db | grep -A2 "failed variants" | cut -c1-400; } >> "$OUT/prefill_regression.txt" 2>&1
  done
done
