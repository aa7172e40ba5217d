#!/bin/bash
# Session 56, issue 42 item 3: the quantized M = 512 products' stage ladder
# on the DEQUANT_STAGE=2 path (the committed table's winners: dequant_f16,
# round_x_f16, then the fp16 GEMM skeleton of matmul_f16). Each arm
# (make_arms.py) times the table's winner config, every parameter fixed
# with --only (onlys.py), exhaustive, cold caches as tuned, a database of
# its own, with vktune-ladder: this commit's vktune with tolerance.patch
# (the arms' numbers are wrong and finite). Then matmul_f16 (vktune, its
# own tolerance) with the same GEMM stage config at the same shapes: the
# skeleton alone with x and W fp16 from the start. Round 2 repeats the
# matmul_q4k arms while the call has time.
set -u
source measurements/device_env.sh
start_call
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
D=measurements/nvidia-h200/session56/quant_ladder
T=measurements/nvidia-h200/table.json
for arm in Q0 nodq zerodq norx gemm; do
  rm -rf /tmp/arm_$arm
  python3 $D/make_arms.py templates /tmp/arm_$arm $arm
  diff -ru templates /tmp/arm_$arm > "$OUT/arm_$arm.diff"
done
call_start=$(date +%s)
tune() {  # binary kernel shape arm onlys-extra label
  local bin=$1 kernel=$2 shape=$3 arm=$4 f16=${5:-} label=$6
  local onlys
  onlys=$(python3 $D/onlys.py $T $([ -n "$f16" ] && echo matmul_q4k || echo $kernel) $shape $f16)
  rm -f /tmp/q.db*
  run "$label" timeout 100 $bin $kernel --device 0 -s $shape --templates /tmp/arm_$arm --strategy exhaustive \
    $onlys --time 80s --seed 56 --db /tmp/q.db > "$OUT/$label.txt" 2> "$OUT/$label.stderr.txt"
}
shapes="512,4096,4096 512,14336,4096 512,4096,14336"
for shape in $shapes; do
  for arm in Q0 nodq zerodq norx gemm; do
    tune vktune-ladder matmul_q4k $shape $arm "" "r1_matmul_q4k_${arm}_$shape"
  done
done
for arm in Q0 nodq zerodq; do
  tune vktune-ladder matmul_q6k 512,4096,14336 $arm "" "r1_matmul_q6k_${arm}_512,4096,14336"
  tune vktune-ladder matmul_q8_0 512,4096,4096 $arm "" "r1_matmul_q8_0_${arm}_512,4096,4096"
done
for shape in $shapes; do
  tune vktune matmul_f16 $shape Q0 f16 "r1_matmul_f16_q4k_stage_$shape"
done
for shape in $shapes; do
  for arm in gemm zerodq nodq Q0 norx; do
    [ $(( $(date +%s) - call_start )) -gt 470 ] && { echo "round 2 stopped at $arm $shape: the call's time" >> "$OUT/log.txt"; break 2; }
    tune vktune-ladder matmul_q4k $shape $arm "" "r2_matmul_q4k_${arm}_$shape"
  done
done
