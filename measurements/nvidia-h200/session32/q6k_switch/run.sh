#!/usr/bin/env bash
# Issue 41: matvec_q6k_q8.comp picking a block's words at a constant offset
# (a switch on the block's offset, one case per even offset) against the
# select chains it had, one GPU, one call. One vktune (built at 9dfcfef):
# old = its built-in templates, new = `--templates templates` (this folder's
# tree with matvec_q6k_q8-switch.patch applied: only matvec_q6k_q8.comp
# differs), on the two Q6_K decode
# products of Llama-3-8B, each into an empty database, seed 21:
# (1) the session-23 table's winner config alone (--only every parameter),
# old/new/new/old to see the GPU's drift; (2) a 40-s tune of each.
# Usage (repository root; .dist and .gl carried, OUT set):
#   bash measurements/nvidia-h200/session32/q6k_switch/run.sh
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
res=/tmp/q6k_switch
mkdir -p "$res"
nvidia-smi -L >"$res/gpu.txt" 2>&1
common="--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only SUPER_BLOCK=1
  --only UNROLL=1 --only W_STAGE=0 --only X_QUANT=1 --only X_SEGMENT=4096"
down="matmul_q6k_swiglu 1,4096,14336 $common --only THREADS_PER_ROW=32 --only WG_SIZE=256 --only X_SCOPE=1"
head="matmul_q6k 1,128256,4096 $common --only THREADS_PER_ROW=8 --only WG_SIZE=128 --only X_SCOPE=0"
run() {  # tag which kernel shape args...
  local tag=$1 which=$2 kernel=$3 shape=$4
  shift 4
  rm -f "$res/$tag.db"*
  local start=$(date +%s)
  local templates=()
  [ "$which" = new ] && templates=(--templates templates)
  vktune "$kernel" "${templates[@]}" --device 0 --shape "$shape" --db "$res/$tag.db" --json --seed 21 "$@" \
    >"$res/$tag.json" 2>"$res/$tag.stderr.txt"
  echo "$tag exit $? wall $(( $(date +%s) - start )) s" >>"$res/log.txt"
  rm -f "$res/$tag.db"*
  tar czf "$OUT/q6k_switch.tgz" -C "$res" .
}
for which in old new new old; do
  n=$(ls "$res" | grep -c "^fixed_${which}_down" || true)
  # shellcheck disable=SC2086
  run "fixed_${which}_down_$n" "$which" $down
  # shellcheck disable=SC2086
  run "fixed_${which}_head_$n" "$which" $head
done
for which in old new; do
  run "tune_${which}_down" "$which" matmul_q6k_swiglu 1,4096,14336 --time 40s
  run "tune_${which}_head" "$which" matmul_q6k 1,128256,4096 --time 40s
done
