#!/bin/bash
# Session 43, call 3 (issue 41, item 1), on an H200 that tuned none of it:
# call 2's candidate table (table.json's 107 winners and the 18 it tuned)
# imported alone into an empty database; `vktune export --model` of every
# op of Llama-3-8B (decode at 128, 4096, 8192 with a 512-token prefill),
# Mistral-7B and Qwen3-8B (decode at 128 and 4096), each exiting 1 where
# it cannot export every op; `vktune step` from it (Llama at each context,
# the others at 128). (The drift check of its winners is call 4: the
# carry limit leaves no room for vktune-bench beside vktune here.)
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
xz -dc measurements/nvidia-h200/session43/tables/call2/table_candidate.json.xz > /tmp/table.json
vktune import /tmp/table.json --db $db >> "$OUT/log.txt" 2>&1; echo "import exit $?" >> "$OUT/log.txt"
run() {  # label command...
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
model() {  # preset contexts...
  local preset=$1; shift
  run "gguf --make-random $preset" vktune gguf --make-random $preset Q4_K_M -o /tmp/$preset.gguf >> "$OUT/log.txt" 2>&1
  local ctx
  for ctx in "$@"; do
    local prompt=0
    [ "$preset" = llama3-8b ] && [ "$ctx" = 8192 ] && prompt=512
    run "export --model $preset --context $ctx --prompt $prompt" vktune export --db $db --model /tmp/$preset.gguf \
      --context $ctx --prompt $prompt -o "$OUT/export_${preset}_ctx$ctx.json" 2>> "$OUT/log.txt"
    xz -9 "$OUT/export_${preset}_ctx$ctx.json"
    [ "$preset" != llama3-8b ] && [ "$ctx" != 128 ] && continue  # the other families' steps at 128 only
    run "step $preset ctx $ctx" timeout 90 vktune step /tmp/$preset.gguf --device 0 --context $ctx --db $db --seed 3 \
      --tuned > "$OUT/step_${preset}_ctx$ctx.txt" 2>> "$OUT/log.txt"
  done
  rm -f /tmp/$preset.gguf
}
model llama3-8b 128 4096 8192
model mistral-7b 128 4096
model qwen3-8b 128 4096
