#!/bin/bash
# Session 49, call 4 (issue 41 item 2): a tail that holds 16 values of a row
# per invocation (all of 4096 at 256 invocations) between the sum of squares
# and the stores, the norm weights loaded as the sum is reduced, against the
# committed tail (.ab/templates: 8 values a batch, y read again for the
# stores). The committed table imported alone; `vktune step --tuned` at
# context 128 alternating the two, then once each at 4096.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
make_llama
step() {  # label context [flags]
  local label=$1 ctx=$2; shift 2
  run "step $label ctx $ctx" timeout 90 vktune step /tmp/l.gguf --device 0 --context $ctx --db /tmp/t.db --seed 3 \
    --tuned "$@" >> "$OUT/step_${label}_ctx$ctx.txt" 2>> "$OUT/log.txt"
}
for round in 1 2; do
  step held16 128; step committed 128 --templates .ab/templates
done
step held16 4096; step committed 4096 --templates .ab/templates
