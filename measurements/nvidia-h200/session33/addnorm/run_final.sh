#!/bin/bash
# Session 33, call 3 (issue 41): the code as committed, where each residual
# add and norm is one add_rmsnorm_mul by default and --norm-into-products
# takes it into the products that read it. Session 23's Llama-3-8B decode
# tables and call 2's winners (the _addnorm products') imported into an
# empty database on an H200 that tuned none of them, then vktune step at
# contexts 128 and 4096 both ways, alternating. Outputs under $OUT.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
db=/tmp/final.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
xz -dc measurements/nvidia-h200/session33/addnorm/call2/all_winners.json.xz > /tmp/call2_winners.json
for table in $t/llama3-8b_q4km_decode_ctx128.json $t/llama3-8b_q4km_decode_ctx4096.json /tmp/call2_winners.json; do
  vktune import $table --db $db >> "$OUT/log.txt" 2>&1
  echo "import $table exit $?" >> "$OUT/log.txt"
done
for ctx in 128 4096; do
  timeout 150 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 \
    > "$OUT/step_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 --norm-into-products --tuned \
    > "$OUT/step_norm_in_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step --norm-into-products ctx $ctx exit $?" >> "$OUT/log.txt"
  timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 --tuned \
    > "$OUT/step_again_ctx$ctx.txt" 2>> "$OUT/log.txt"
  echo "step again ctx $ctx exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/llama3-8b.gguf
