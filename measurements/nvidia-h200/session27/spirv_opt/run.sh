#!/usr/bin/env bash
# Issue 39: what shaderc's SPIR-V optimisation passes cost a --space full tune
# on an H200, and what they buy at run time. In one call, one GPU:
# 1. the three slowest acceptance rows (--space full --time 90s --seed 21,
#    empty databases: session 21's command) with VKTUNE_SPIRV_OPT=none, and
#    attention_decode's also with the default (performance) for a same-GPU
#    comparison of rates;
# 2. each none-run's winner, and the kernel's baseline, timed with and
#    without the passes (a tune pinned to the winner's config by --only,
#    --budget 2, fresh database): the passes' effect on the kernels' speed.
# Usage (repository root, .dist and .gl carried; OUT set):
#   bash measurements/nvidia-h200/session27/spirv_opt/run.sh
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
res=/tmp/spirv_opt
mkdir -p "$res"
cp "$OUT/gpu.txt" "$res/"
pack() { tar czf "$OUT/spirv_opt.tgz" -C "$res" .; }  # after every run: a cut-off call keeps what it did
tune() {  # TAG SETTING KERNEL SHAPE ARGS...
  local tag=$1 setting=$2 kernel=$3 shape=$4
  shift 4
  rm -f "$res/$tag.db"*
  local start end status
  start=$(date +%s.%N)
  VKTUNE_SPIRV_OPT=$setting vktune "$kernel" --device 0 --shape "$shape" --db "$res/$tag.db" --json "$@" \
    >"$res/$tag.json" 2>"$res/$tag.stderr.txt"
  status=$?
  end=$(date +%s.%N)
  echo "$tag VKTUNE_SPIRV_OPT=$setting exit $status wall $(awk "BEGIN {print $end - $start}") s" | tee -a "$res/walls.txt"
  VKTUNE_SPIRV_OPT=$setting vktune export --format csv --db "$res/$tag.db" -o "$res/$tag.csv" >/dev/null 2>&1
  rm -f "$res/$tag.db"*
  pack
}
rows=("attention_decode 32,8,128,8192" "matmul_q6k 1,4096,14336" "matmul_q8_0 1,14336,4096")
for row in "${rows[@]}"; do
  read -r kernel shape <<<"$row"
  tune "${kernel}_${shape//,/x}_full_none" none "$kernel" "$shape" --space full --time 90s --seed 21
done
tune "attention_decode_32x8x128x8192_full_performance" performance attention_decode 32,8,128,8192 \
  --space full --time 90s --seed 21
for row in "${rows[@]}"; do
  read -r kernel shape <<<"$row"
  # The winner's config from the pretty-printed report (no python there).
  only=$(awk '/^      "winner": \{/ {w = 1} w && /"config": \{/ {c = 1; next}
              c && /\}/ {exit} c {gsub(/[",:]/, ""); printf "--only %s=%s ", $1, $2}' \
         "$res/${kernel}_${shape//,/x}_full_none.json")
  echo "$kernel winner of the none-run: $only" >>"$res/walls.txt"
  for setting in performance none; do
    # shellcheck disable=SC2086
    tune "${kernel}_${shape//,/x}_winner_${setting}" "$setting" "$kernel" "$shape" --space full --budget 2 --seed 5 $only
  done
done
