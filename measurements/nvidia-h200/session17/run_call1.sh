#!/bin/bash
# Session 17, call 1: depthwise 3x3 at MobileNet's 112x112x96 stride-2 layer
# with NB image lanes per workgroup (the committed spec) against the spec
# before it (a copy in exp/dw_old), batch 8 and 1, in one call on one GPU;
# the same byte counts through `add` (read 2 floats, write 1: the floor of a
# dispatch moving that many bytes at that size); the fp16-activation
# quantized products tuned at their default shapes (table exported); the
# device's ceilings.
set -u
source measurements/device_env.sh
for shape in 8,112,112,96,2,56,56 1,112,112,96,2,56,56; do
  for spec in exp/dw_old/depthwise.json examples/mobilenet_depthwise/depthwise.json; do
    vktune $spec --device 0 --shape $shape --time ${DW_SECONDS:-45}s --seed 17 --top 5 --db /tmp/dw.db > /tmp/t.txt 2>&1
    { echo "== $spec $shape"; grep -A6 "rank " /tmp/t.txt | cut -c1-220; grep -E "winner .* vs" /tmp/t.txt | head -1; } \
      >> "$OUT/dw.txt"
  done
done
# 6,021,120 and 48,168,960 bytes: the depthwise layer's input once and output
# once at batch 1 and 8, as 12 bytes per element of add.
vktune add --device 0 --shape 1,501760 --shape 1,4014080 --strategy exhaustive --time 60s --seed 17 --top 3 \
  --db /tmp/dw.db > "$OUT/add_same_bytes.txt" 2>&1
vktune devices --remeasure --device 0 --db /tmp/dw.db > "$OUT/devices.txt" 2>&1
for k in matmul_q4_0_f16 matmul_q8_0_f16 matmul_q4k_f16; do
  vktune $k --device 0 --time ${F16_SECONDS:-80}s --seed 17 --top 3 --db /tmp/f16.db > /tmp/t.txt 2>&1
  { echo "== $k exit $?"; grep -E "winner .* vs|^[^ ].*: [0-9]+/[0-9]+ done|rank |^ +1 " /tmp/t.txt | cut -c1-220; } >> "$OUT/f16_products.txt"
done
vktune export --db /tmp/f16.db > "$OUT/f16_products_table.json" 2>> "$OUT/f16_products.txt"
vktune bench --db /tmp/f16.db --device 0 -- --benchmark_format=json > "$OUT/f16_products_bench.json" 2> "$OUT/bench_err.txt"
