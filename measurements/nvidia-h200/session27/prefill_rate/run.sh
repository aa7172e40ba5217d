#!/usr/bin/env bash
# Issue 39: the two prefill acceptance rows (matmul_q4k and matmul_f16 at
# 512,4096,14336), not rerun since session 21, with and without shaderc's
# SPIR-V optimisation passes. In one call, one GPU:
# 1. each row --space full --time 90s --seed 21 from an empty database
#    (session 21's command) with VKTUNE_SPIRV_OPT=none and with the default;
# 2. each none-run's winner, and the kernel's baseline, timed with and
#    without the passes (a tune pinned to the winner's config by --only,
#    --budget 2, fresh database): the passes' effect on the kernels' speed.
# Usage (repository root, .dist and .gl carried; OUT set):
#   bash measurements/nvidia-h200/session27/prefill_rate/run.sh
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
res=/tmp/prefill_rate
mkdir -p "$res"
cp "$OUT/gpu.txt" "$res/"
pack() { tar czf "$OUT/prefill_rate.tgz" -C "$res" .; }  # after every run: a cut-off call keeps what it did
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
rows=("matmul_q4k 512,4096,14336" "matmul_f16 512,4096,14336")
for row in "${rows[@]}"; do
  read -r kernel shape <<<"$row"
  for setting in none performance; do
    tune "${kernel}_${shape//,/x}_full_${setting}" "$setting" "$kernel" "$shape" --space full --time 90s --seed 21
  done
done
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
