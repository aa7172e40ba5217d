#!/bin/bash
# Session 39, issue 42 items 2-4, on an H200 that tuned none of it: call 3's
# exported prefill table (its six products measured with CM_PREFETCH 1 and
# 2, the faster kept) imported alone, `vktune step --prompt 512` twice; then
# the fifteen quantized M = 512 winners of table.json measured with one and
# two slices in flight as call 3 did (winner_onlys.py; a database of their
# own, table.json imported first), and that database's table exported.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
D=measurements/nvidia-h200/session39/prefetch_depth
: > "$OUT/log.txt"
stamp() { echo "$1 exit $2 in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"; }
vktune --version > "$OUT/version.txt" 2>&1
rm -f /tmp/p.db* /tmp/q.db*
xz -dc $D/call3/llama3-8b_q4km_ctx8192_prefill512.json.xz > /tmp/prefill.json
vktune import /tmp/prefill.json --db /tmp/p.db >> "$OUT/log.txt" 2>&1
echo "import call 3's prefill table exit $?" >> "$OUT/log.txt"
start=$(date +%s)
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
stamp "gguf --make-random" $?
for i in 1 2; do
  start=$(date +%s)
  timeout 80 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
    > "$OUT/step_prompt512_$i.txt" 2>> "$OUT/log.txt"
  stamp "step --prompt 512 ($i)" $?
done
rm -f /tmp/llama3-8b.gguf
vktune import measurements/nvidia-h200/table.json --db /tmp/q.db >> "$OUT/log.txt" 2>&1
echo "import table.json exit $?" >> "$OUT/log.txt"
python3 $D/winner_onlys.py measurements/nvidia-h200/table.json | grep -v '^matmul_f16 ' > "$OUT/quant_onlys.txt"
while read -r kernel shape onlys; do
  start=$(date +%s)
  timeout 40 vktune $kernel --device 0 -s $shape $onlys --strategy exhaustive --seed 39 --time 30s --db /tmp/q.db \
    < /dev/null > "$OUT/tune_${kernel}_${shape}.txt" 2> "$OUT/tune_${kernel}_${shape}.stderr.txt"
  stamp "tune $kernel $shape" $?
done < "$OUT/quant_onlys.txt"
vktune export --db /tmp/q.db -o "$OUT/table_after.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
