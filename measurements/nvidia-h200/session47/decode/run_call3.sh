#!/bin/bash
# Session 47, call 3 (issue 41 item 2): two template changes, A/B on the
# whole step. (1) matvec_q6k_q8.comp: where every row of an invocation and
# every invocation of a subgroup have their Q6_K block at one byte offset
# in its first 16-byte vector, the math runs in one of 8 copies with that
# offset a constant (the realignment's selects resolved at compile time);
# (2) rmsnorm.comp: a one-step row's weights loaded before its sum of
# squares, not after. The binary built from this session's tree imports
# measurements/nvidia-h200/table.json alone into an empty database; `vktune
# step --tuned` runs the committed table's configs compiled from the new
# built-in templates ("new") and from the committed templates (`--templates
# .ab/templates`, "old", the tree before the two changes), alternating, at
# context 128; then the Q6_K products and the norms are re-tuned under the
# new templates and the step runs again at 128 and 4096.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
vktune import measurements/nvidia-h200/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
step() {  # label context [options...]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db $db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
run "gguf --make-random llama3-8b" vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/l.gguf >> "$OUT/log.txt" 2>&1
for i in 1 2; do
  step new 128
  step old 128 --templates .ab/templates
done
tune() {  # kernel shapes...
  local kernel=$1; shift
  local shapes=(); for s in "$@"; do shapes+=(--shape "$s"); done
  run "tune $kernel" timeout 60 vktune $kernel --device 0 "${shapes[@]}" --time 35s --db $db --seed 5 \
    > "$OUT/tune_$kernel.txt" 2>> "$OUT/log.txt"
}
tune matmul_q6k_swiglu 1,4096,14336
tune matmul_q6k 1,128256,4096
tune matmul_q6k_cache 1,1024,4096,128 1,1024,4096,4096
tune add_rmsnorm_mul 1,4096
tune rmsnorm_mul 1,4096
step retuned 128
step retuned 128
step retuned 4096
vktune export --db $db -o "$OUT/table.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table.json"
