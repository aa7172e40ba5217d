#!/bin/bash
# Session 56, call 3 (issue 42 item 3), after call 1's ladder, whose `gemm`
# arm (the GEMM stage after two empty pre-passes) ran 6-29 µs slower than
# matmul_f16 with the same config:
# (The first attempt lost its machine; this one is cut to the session's
# remaining device time: parts 1 and 3 at 512,4096,14336 first, the fused
# path at two shapes, part 1 at 512,14336,4096 last while time allows.)
# 1. onebuf arms (make_arms.py): the GEMM stage's W loads through the same
#    block declaration as x's (binding 3 is declared twice today), with the
#    pre-passes (onebuf, right numbers) and without (gemm_onebuf), against
#    Q0 and gemm, cold, at 512,4096,14336 and 512,14336,4096;
# 2. the fused tensor-core path (DEQUANT_STAGE=0: W dequantized as it is
#    staged, no W16, no pre-pass) of matmul_q4k at two M = 512 shapes,
#    a 45-s tune each on a fresh database (vktune, its own tolerance);
# 3. the gemm arm and matmul_f16 with --cache hot, at 512,4096,14336.
set -u
source measurements/device_env.sh
start_call
call_start=$(date +%s)
vktune-ladder --version > "$OUT/version_ladder.txt" 2>&1
D=measurements/nvidia-h200/session56/quant_ladder
T=measurements/nvidia-h200/table.json
for arm in Q0 gemm onebuf gemm_onebuf; do
  rm -rf /tmp/arm_$arm
  python3 $D/make_arms.py templates /tmp/arm_$arm $arm
done
arm_tune() {  # label arm shape cache binary kernel f16
  rm -f /tmp/q.db*
  run "$1" timeout 100 $5 $6 --device 0 -s $3 --templates /tmp/arm_$2 --strategy exhaustive \
    $(python3 $D/onlys.py $T matmul_q4k $3 ${7:-}) --cache $4 --time 80s --seed 56 --db /tmp/q.db \
    > "$OUT/$1.txt" 2> "$OUT/$1.stderr.txt"
}
onebuf_round() {  # label shapes...
  local label=$1; shift
  for shape in "$@"; do
    for arm in Q0 onebuf gemm gemm_onebuf; do
      [ $(( $(date +%s) - call_start )) -gt 300 ] && { echo "stopped before $label $arm $shape: the call's time" >> "$OUT/log.txt"; return; }
      arm_tune "${label}_matmul_q4k_${arm}_$shape" $arm $shape cold vktune-ladder matmul_q4k
    done
  done
}
onebuf_round r1 512,4096,14336
for shape in 512,4096,14336 512,14336,4096; do
  rm -f /tmp/f.db*
  run "fused_matmul_q4k_$shape" timeout 90 vktune matmul_q4k --device 0 -s $shape --only DEQUANT_STAGE=0 \
    --only USE_COOPMAT=1 --time 45s --seed 56 --db /tmp/f.db > "$OUT/fused_matmul_q4k_$shape.txt" \
    2> "$OUT/fused_matmul_q4k_$shape.stderr.txt"
done
for shape in 512,4096,14336; do
  arm_tune "hot_matmul_q4k_gemm_$shape" gemm $shape hot vktune-ladder matmul_q4k
  arm_tune "hot_matmul_f16_$shape" Q0 $shape hot vktune matmul_f16 f16
done
onebuf_round r1 512,14336,4096
