#!/bin/bash
# Session 44, call 1 (issue 41 item 2): the Q6_K decode walk with its
# block offsets as constants (UNIT_PHASES, templates/matvec_q6k_q8.comp)
# against the templates before it (A: HEAD's templates, carried as
# .dist/tplA; B: this tree's, built in). Part 1: the committed winners'
# configs (every parameter fixed with --only), cold, one database per run,
# arms alternating, two rounds. Part 2: each arm re-tuned over the
# SUPER_BLOCK=1 integer-dot decode space at the Q6_K products of
# Llama-3-8B's decode (the head, ffn_down with SwiGLU, attn_v).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
A=.dist/tplA/templates
B=templates
fixed() {  # kernel shape config...
  local kernel=$1 shape=$2; shift 2
  local only=""
  for kv in "$@"; do only="$only --only $kv"; done
  echo "$only"
}
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
common="COLS_PER_PASS=1 REDUCTION=0 SUBGROUP_SIZE=0 SUPER_BLOCK=1 W_STAGE=0 X_QUANT=1 X_SEGMENT=4096"
cases=(
  "matmul_q6k_swiglu 1,4096,14336 ROWS_PER_WG=16 THREADS_PER_ROW=32 UNROLL=1 WG_SIZE=256 X_SCOPE=1"
  "matmul_q6k 1,1024,4096 ROWS_PER_WG=16 THREADS_PER_ROW=32 UNROLL=2 WG_SIZE=256 X_SCOPE=1"
  "matmul_q6k_swiglu 1,4096,12288 ROWS_PER_WG=16 THREADS_PER_ROW=32 UNROLL=1 WG_SIZE=256 X_SCOPE=1"
  "matmul_q6k 1,32768,4096 ROWS_PER_WG=16 THREADS_PER_ROW=16 UNROLL=1 WG_SIZE=128 X_SCOPE=1"
  "matmul_q4k 1,28672,4096 ROWS_PER_WG=16 THREADS_PER_ROW=32 UNROLL=1 WG_SIZE=256 X_SCOPE=1"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    set -- $c
    kernel=$1 shape=$2; shift 2
    only=$(fixed $kernel $shape $common "$@")
    for arm in A B; do
      tpl=$A; [ $arm = B ] && tpl=$B
      rm -f /tmp/f.db*
      run "round $round $arm $kernel $shape" timeout 60 vktune $kernel --device 0 -s $shape --templates $tpl \
        --strategy exhaustive $only --time 30s --seed 44 --db /tmp/f.db \
        > "$OUT/fixed_r${round}_${arm}_${kernel}_${shape}.txt" 2>&1
    done
  done
done
# Part 2: re-tuned, each arm its own database.
space="--only X_QUANT=1 --only SUPER_BLOCK=1 --only W_STAGE=0 --only REDUCTION=0 --only COLS_PER_PASS=1"
for kshape in "matmul_q6k 1,128256,4096" "matmul_q6k_swiglu 1,4096,14336" "matmul_q6k 1,1024,4096"; do
  set -- $kshape
  for arm in A B; do
    tpl=$A; [ $arm = B ] && tpl=$B
    rm -f /tmp/t$arm.db*
    run "tune $arm $1 $2" timeout 65 vktune $1 --device 0 -s $2 --templates $tpl $space --time 40s --seed 44 \
      --db /tmp/t$arm.db > "$OUT/tune_${arm}_$1_$2.txt" 2>&1
  done
done
