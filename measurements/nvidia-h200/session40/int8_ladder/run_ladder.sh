#!/bin/bash
# Session 40, issue 42 item 1. Part 1: the int8 GEMM's ladder (make_ladder.py's
# arms; vktune-tol = vktune with tolerance.patch), two configs near call 1's
# winners (../int8/), three shapes, each arm its own database. Part 2: the
# int8 path tuned again with the scales group-major and the offset term
# compiled only for Q4_K and Q5_K (this commit's vktune, tolerances as
# committed).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/ladder_log.txt"
vktune --version > "$OUT/version.txt" 2>&1
python3 measurements/nvidia-h200/session40/int8_ladder/make_ladder.py templates /tmp/arms
only="--only DEQUANT_STAGE=3 --only TILE_M=128 --only TILE_N=64,128 --only TILE_K=64 --only WARPS_M=4 --only WARPS_N=1,2"
for shape in 512,4096,4096 512,4096,14336; do
  for kernel in matmul_q4k matmul_q8_0; do
    [ $kernel = matmul_q8_0 ] && [ $shape = 512,4096,14336 ] && continue
    for arm in as_committed no_offset_term no_scales int32_accumulate prep_only; do
      rm -f /tmp/l.db*
      start=$(date +%s)
      timeout 60 vktune-tol $kernel --device 0 -s $shape --templates /tmp/arms/$arm --strategy exhaustive $only \
        --time 30s --seed 40 --db /tmp/l.db > "$OUT/${kernel}_${shape}_${arm}.txt" 2>&1
      echo "$kernel $shape $arm exit $? in $(( $(date +%s) - start )) s" >> "$OUT/ladder_log.txt"
    done
  done
done
: > "$OUT/tune_log.txt"
rm -f /tmp/i8.db*
run() {  # kernel shape seconds
  local kernel=$1 shape=$2 secs=$3
  local start=$(date +%s)
  timeout $((secs + 30)) vktune $kernel --device 0 -s $shape --only DEQUANT_STAGE=3 --time ${secs}s --seed 40 \
    --db /tmp/i8.db > "$OUT/tune_${kernel}_${shape}.txt" 2>&1
  echo "$kernel $shape exit $? in $(( $(date +%s) - start )) s" >> "$OUT/tune_log.txt"
}
run matmul_q4k 512,4096,4096 40
run matmul_q4k 512,14336,4096 50
run matmul_q4k 512,4096,14336 50
run matmul_q8_0 512,4096,4096 40
run matmul_q6k 512,4096,4096 40
vktune export --db /tmp/i8.db > "$OUT/int8_table.json" 2> "$OUT/export.stderr.txt"
