#!/bin/bash
# Session 20: every slot-scope (X_SCOPE=1) variant of the decode space at
# issue 20's decode targets, hot, exhaustive, fixed seed: whether the
# search's time budget (75/60/25 s in run_decode_targets.sh) left a faster
# config of the path unmeasured. KERNELS picks the kernels (default all);
# SPACE=full also takes the configs the device-keyed pruning rules drop
# (with COLS_PER_PASS=1, REDUCTION=0, SUBGROUP_SIZE=0 and W_STAGE=0 pinned,
# as every decode winner has them).
# Run from the repository root with .gl, .dist/bin and .dist/lib carried.
set -u
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)
for run in "matmul_q6k|1,4096,4096|--only SUPER_BLOCK=1" "matmul_q6k|1,14336,4096|--only SUPER_BLOCK=1" \
  "matmul_q6k|1,4096,14336|--only SUPER_BLOCK=1" "matmul_q8_0|1,14336,4096|--only BLOCK_PAIRS=1" \
  "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1"; do
  IFS='|' read -r k shape only <<< "$run"
  [[ " ${KERNELS:-matmul_q6k matmul_q8_0 matmul_q4_0} " == *" $k "* ]] || continue
  extra=""
  [ "${SPACE:-pruned}" = full ] && extra="--space full --only COLS_PER_PASS=1 --only REDUCTION=0 --only SUBGROUP_SIZE=0 --only W_STAGE=0"
  vktune $k --device ${DEV:-0} --shape $shape --cache hot --only X_SCOPE=1 --only X_QUANT=1 $only $extra \
    --strategy exhaustive --no-transfer --seed 20 --top 5 --db $T/${k}_$shape.db > $T/t.txt 2>&1
  { echo "== $k $shape exit $?"; grep -E "^ +[1-5] +[0-9.]+ |evaluated|winner" $T/t.txt | cut -c1-250
    vktune results --failures --db $T/${k}_$shape.db | grep -i -A3 "fail"; } >> "$OUT/slot_exhaustive_${SPACE:-pruned}.txt" 2>&1
done
