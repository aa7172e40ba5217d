#!/bin/bash
# Session 47, call 5 (issue 41 item 2): rmsnorm.comp's weights loaded before
# the sum of squares (a one-step row), alone: call 3's Q6_K change is
# reverted in this binary. The committed table imported alone; `vktune step
# --tuned` at context 128 with the new templates (call 4's figure on
# another GPU), then at 4096 with the committed table's configs compiled from
# the new built-in templates ("new") and from the committed templates
# (`--templates .ab/templates`, "old"), once each.
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
step new 128
step new 4096
step old 4096 --templates .ab/templates
