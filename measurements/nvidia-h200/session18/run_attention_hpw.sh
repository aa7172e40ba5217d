#!/bin/bash
# Session 18: attention_prefill's tensor-core path with HPW (query heads per
# workgroup that share one KV head, so one staged K and V block serves HPW
# heads), at the three default shapes: every legal config with PREFETCH=1,
# BC 32 or 64, any WG_SIZE, MT and HPW (HPW=1 is the kernel before), fixed
# seed, fresh database; the winners' table exported. Run from the repository
# root with .gl, .dist/bin/vktune (this commit's build tree) and .dist/lib.
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
for shape in 2048,32,8,128,2048 2048,32,8,64,2048 512,32,8,128,512; do
  vktune attention_prefill --device 0 --shape $shape --templates templates --only MMA=1 --only PREFETCH=1 --only BC=32,64 \
    --strategy exhaustive --no-transfer --seed 18 --top 12 --db /tmp/hpw.db > /tmp/t.txt 2>&1
  { echo "== $shape exit $?"; grep -E "^ +[0-9]+ +[0-9.]+ |winner|evaluated" /tmp/t.txt | cut -c1-200; } >> "$OUT/hpw.txt"
done
vktune export --db /tmp/hpw.db > "$OUT/hpw_table.json" 2>> "$OUT/hpw.txt"
