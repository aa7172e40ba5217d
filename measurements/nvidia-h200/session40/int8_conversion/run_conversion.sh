#!/bin/bash
# Session 40, issue 42 items 1 and 6. Part 1: the int8 GEMM as committed
# against make_arm.py's copy (int32 products made fp32 by a bias add, not a
# conversion), alternating, two rounds, each run its own database, every
# variant validated (tolerances as committed). Part 2: session 39's candidate
# table's drift check (../../session39/prefetch_depth/run_drift_candidate.sh).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/ab_log.txt"
vktune --version > "$OUT/version.txt" 2>&1
python3 measurements/nvidia-h200/session40/int8_conversion/make_arm.py templates /tmp/bias_add
cp -r templates /tmp/committed
only="--only DEQUANT_STAGE=3 --only TILE_M=64,128 --only TILE_N=64,128 --only TILE_K=64 --only WARPS_M=1,2,4 --only WARPS_N=1,2,4"
for round in 1 2; do
  for shape in 512,4096,4096 512,4096,14336; do
    for kernel in matmul_q4k matmul_q8_0; do
      [ $kernel = matmul_q8_0 ] && [ $shape = 512,4096,14336 ] && continue
      for arm in committed bias_add; do
        rm -f /tmp/a.db*
        start=$(date +%s)
        timeout 60 vktune $kernel --device 0 -s $shape --templates /tmp/$arm --strategy exhaustive $only \
          --time 30s --seed 40 --db /tmp/a.db > "$OUT/r${round}_${kernel}_${shape}_${arm}.txt" 2>&1
        echo "round $round $kernel $shape $arm exit $? in $(( $(date +%s) - start )) s" >> "$OUT/ab_log.txt"
      done
    done
  done
done
timeout 280 bash measurements/nvidia-h200/session39/prefetch_depth/run_drift_candidate.sh
