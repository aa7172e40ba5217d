#!/bin/bash
# Session 33, call 5 (issue 41): why attention runs slower in the chain that
# takes the norms into the products (calls 2 and 3: 15.7 -> 19.6 us a layer
# at context 4096). vktune at cee6103; session 23's context-4096 table and
# call 2's _addnorm winners imported; vktune step --tuned at context 4096:
# the default and the taken-in chain each with a barrier before every op,
# then the taken-in chain with stored winners for every kernel but the
# _addnorm products (those at their baselines), then the default again.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
db=/tmp/probe.db
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) > "$OUT/log.txt" 2>&1
xz -dc measurements/nvidia-h200/session33/addnorm/call2/all_winners.json.xz > /tmp/call2_winners.json
for table in measurements/nvidia-h200/session23/llama3-8b_q4km_decode_ctx4096.json /tmp/call2_winners.json; do
  vktune import $table --db $db >> "$OUT/log.txt" 2>&1
  echo "import $table exit $?" >> "$OUT/log.txt"
done
step() {
  local name=$1; shift
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --db $db --seed 3 --tuned "$@" \
    > "$OUT/$name.txt" 2>> "$OUT/log.txt"
  echo "$name exit $?" >> "$OUT/log.txt"
}
step default_barrier_every_op --barrier-every-op
step norm_in_barrier_every_op --norm-into-products --barrier-every-op
step norm_in_addnorm_baselines --norm-into-products \
  --tuned-kernels get_rows_q4k,matmul_q4k,matmul_q6k,matmul_q4k_swiglu,matmul_q6k_swiglu,rope,rope_cache,kv_store,attention_decode,argmax
step default_again
rm -f /tmp/llama3-8b.gguf
