#!/bin/bash
# Session 38, issue 41: does the GPU's clock or power explain why the ops
# after a fused norm run slower (session 33's --norm-into-products: attention
# 15.7 -> 19.6 us a layer at context 4096; this session's _resnorm chain:
# 15.6 -> 17.6)? Session 23's context-4096 table and session 33's call-2
# winners (the _addnorm products') imported; vktune step at context 4096,
# default and --norm-into-products alternating, while nvidia-smi samples the
# SM and memory clocks, power and throttle reasons every 100 ms; each step's
# start and end stamped in log.txt (UTC, as nvidia-smi's timestamps).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
db=/tmp/clk.db
rm -f $db*
: > "$OUT/log.txt"
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf >> "$OUT/log.txt" 2>&1
xz -dc measurements/nvidia-h200/session33/addnorm/call2/all_winners.json.xz > /tmp/call2_winners.json
for table in measurements/nvidia-h200/session23/llama3-8b_q4km_decode_ctx4096.json /tmp/call2_winners.json; do
  vktune import $table --db $db >> "$OUT/log.txt" 2>&1
  echo "import $table exit $?" >> "$OUT/log.txt"
done
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$OUT/smi.csv" 2>&1 &
smi=$!
for way in default norm_in default_again norm_in_again; do
  flag=""
  case $way in norm_in*) flag=--norm-into-products ;; esac
  echo "$way start $(date -u +%Y/%m/%d\ %H:%M:%S.%N)" >> "$OUT/log.txt"
  timeout 45 vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --db $db --seed 3 --tuned --samples 1000 $flag \
    > "$OUT/step_$way.txt" 2>> "$OUT/log.txt"
  echo "$way exit $? end $(date -u +%Y/%m/%d\ %H:%M:%S.%N)" >> "$OUT/log.txt"
done
kill $smi
rm -f /tmp/llama3-8b.gguf
