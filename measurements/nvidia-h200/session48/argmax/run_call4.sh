#!/bin/bash
# Session 48, call 4 (issue 41 item 2): ladder arms of the decode chain, each
# `vktune step --templates DIR` with a copy of the templates, alternating
# with the built-in ones (same database, GPU, weights). The arms compute
# wrong numbers; their times bound what each change of what the products
# read would give:
#   .ab  aligned_q6k: call 3's arm, every Q6_K block read as 16-byte aligned
#        (call3/aligned_q6k_arm.patch);
#   .ab2 precomputed_swiglu: the SwiGLU down products reading x as one
#        precomputed vector, no up, no silu (call4/precomputed_swiglu_arm.patch);
#   .ab4 prequantized_x: every integer-dot product copying x as 8-bit codes
#        and scales made once a token, instead of loading fp32 x and
#        quantizing it in every workgroup (call4/prequantized_x_arm.patch);
#   .ab5 aligned_prequantized: .ab and .ab4 together.
set -u
source measurements/device_env.sh
start_call
db=/tmp/t.db; import_table $db
make_llama
step() {  # label [options...]
  local label=$1; shift
  run "step $label ctx 128" timeout 90 vktune step /tmp/l.gguf --device 0 --context 128 --db $db --seed 3 --tuned "$@" \
    >> "$OUT/step_${label}_ctx128.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step builtin
  step aligned_q6k --templates .ab/templates
  step precomputed_swiglu --templates .ab2/templates
  step prequantized_x --templates .ab4/templates
  step aligned_prequantized --templates .ab5/templates
done
