#!/bin/bash
# Session 38, issue 41, call 1: each residual add and the norm after it
# taken into the product before them (the _resnorm kernels, vktune step
# --norm-after-products) against the default chain (one add_rmsnorm_mul per
# norm). Session 23's Llama-3-8B Q4_K_M decode tables imported into an empty
# database; the three _resnorm kernels tuned at the model's shapes on this
# GPU; vktune step at contexts 128 and 4096 both ways, alternating; every
# winner exported for a reproduction on another GPU. Outputs under $OUT.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
db=/tmp/resnorm.db
rm -f $db*
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for table in $t/llama3-8b_q4km_decode_ctx128.json $t/llama3-8b_q4km_decode_ctx4096.json; do
  vktune import $table --db $db >> "$OUT/log.txt" 2>&1
  echo "import $table exit $?" >> "$OUT/log.txt"
done
for ks in matmul_q4k_resnorm:1,4096,4096 matmul_q4k_swiglu_resnorm:1,4096,14336 matmul_q6k_swiglu_resnorm:1,4096,14336; do
  k=${ks%%:*}; s=${ks#*:}
  start=$(date +%s)
  timeout 75 vktune $k --device 0 -s $s --time 55s --seed 38 --db $db > "$OUT/tune_$k.txt" 2> "$OUT/tune_$k.stderr.txt"
  stamp "tune $k $s" $?
done
for ctx in 128 4096; do
  for way in default after default_again after_again; do
    flag=""
    case $way in after*) flag=--norm-after-products ;; esac
    start=$(date +%s)
    timeout 60 vktune step /tmp/llama3-8b.gguf --device 0 --context $ctx --db $db --seed 3 --tuned $flag \
      > "$OUT/step_${way}_ctx$ctx.txt" 2>> "$OUT/log.txt"
    stamp "step $way ctx $ctx" $?
  done
done
vktune export --db $db -o "$OUT/all_winners.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
