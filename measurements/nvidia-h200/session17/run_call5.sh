#!/bin/bash
# Session 17, call 5 (call 3 again, wanted on an H200; call 3 landed on an
# H100): the fp16 MobileNet V2 convolution specs tuned at their default
# shapes (table exported), and the fp16-activation quantized products at
# their three prefill shapes, one shape per run (a run's shared budget
# starved the last prefill shape in calls 1, 3 and 4), with a Google
# Benchmark report of the winners.
set -u
source measurements/device_env.sh
db=/tmp/conv_f16.db
for spec in stem:${STEM_SECONDS:-25} depthwise:${DW_SECONDS:-60} pointwise:${PW_SECONDS:-110}; do
  name=${spec%%:*} seconds=${spec##*:}
  vktune examples/mobilenet_$name/${name}_f16.json --device 0 --time ${seconds}s --seed 17 --top 3 --db $db > /tmp/t.txt 2>&1
  { echo "== ${name}_f16 exit $?"; grep -E "winner .* vs|^  rank|^ +1  " /tmp/t.txt | cut -c1-230; } >> "$OUT/conv_f16_tunes.txt"
done
vktune export --db $db > "$OUT/conv_f16_table.json" 2>> "$OUT/conv_f16_tunes.txt"
for k in matmul_q4_0_f16 matmul_q8_0_f16 matmul_q4k_f16; do
  for shape in 512,4096,4096 512,14336,4096 512,4096,14336; do
    vktune $k --device 0 --shape $shape --time ${F16_SECONDS:-25}s --seed 17 --top 3 --db /tmp/f16.db > /tmp/t.txt 2>&1
    { echo "== $k $shape exit $?"; grep -E "winner .* vs|^  rank|^ +1  |search:" /tmp/t.txt | cut -c1-230; } >> "$OUT/f16_prefill.txt"
  done
done
vktune export --db /tmp/f16.db > "$OUT/f16_prefill_table.json" 2>> "$OUT/f16_prefill.txt"
vktune bench --db /tmp/f16.db --device 0 -- --benchmark_format=json > "$OUT/f16_prefill_bench.json" 2>> "$OUT/f16_prefill.txt"
