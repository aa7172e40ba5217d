#!/bin/bash
# Session 39, issue 42 items 2-4: CM_PREFETCH=2 on the products of the
# 512-token prefill of Llama-3-8B Q4_K_M and on matmul_f16's table winners.
# Session 37's prefill table (call 6, 10,295.6 tokens/s on another H200) is
# imported; each of its six DEQUANT_STAGE=2 product winners is measured on
# this GPU with one slice in flight and with two (every other parameter
# fixed: winner_onlys.py), the faster stored; then `vktune step --prompt
# 512` from the database before and after, alternating, and the table
# exported. Then matmul_f16's four table.json prefill winners the same way
# (a database of their own).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
D=measurements/nvidia-h200/session39/prefetch_depth
t=measurements/nvidia-h200/session37/prefill/call6/llama3-8b_q4km_ctx8192_prefill512.json
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
rm -f /tmp/p.db* /tmp/f.db*
vktune import $t --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import prefill table exit $?" >> "$OUT/log.txt"
cp /tmp/p.db /tmp/p0.db
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
tune() {  # db tag kernel shape onlys...
  local db=$1 tag=$2 kernel=$3 shape=$4; shift 4
  start=$(date +%s)
  timeout 60 vktune $kernel --device 0 -s $shape "$@" --strategy exhaustive --seed 39 --time 45s --db $db < /dev/null \
    > "$OUT/tune_${tag}_${kernel}_${shape}.txt" 2> "$OUT/tune_${tag}_${kernel}_${shape}.stderr.txt"
  stamp "tune $tag $kernel $shape" $?
}
python3 $D/winner_onlys.py $t > "$OUT/prefill_onlys.txt"
while read -r kernel shape onlys; do tune /tmp/p.db prefill $kernel $shape $onlys; done < "$OUT/prefill_onlys.txt"
step() {
  start=$(date +%s)
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db $1 --seed 3 --tuned \
    > "$OUT/step_prompt512_$2.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 ($2)" $?
}
step /tmp/p0.db before1
step /tmp/p.db after1
step /tmp/p0.db before2
step /tmp/p.db after2
vktune export --db /tmp/p.db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
python3 $D/winner_onlys.py measurements/nvidia-h200/table.json | grep '^matmul_f16 ' > "$OUT/f16_onlys.txt"
while read -r kernel shape onlys; do tune /tmp/f.db f16 $kernel $shape $onlys; done < "$OUT/f16_onlys.txt"
