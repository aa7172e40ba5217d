#!/bin/bash
# Session 43, call 5 (issue 41, item 2): the read ceiling at the size of
# each decode product's weights, as one dispatch: the `prefetch` kernel of
# prefetch.patch (this tree with the patch applied) tuned at those sizes in
# whole 4 KiB blocks — attn_q/attn_output Q4_K 4096x4096 (2304 blocks),
# attn_k/attn_v Q4_K 1024x4096 (576), attn_v Q6_K (840), ffn_down Q4_K
# (8064) and Q6_K (11760), gate and up stacked Q4_K 28672x4096 (16128), the
# output head Q6_K 128256x4096 (105210) — cold (weights rotated past the
# caches, as the products' winners were timed), and hot at the sizes L2
# holds.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk; mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
db=/tmp/t.db; rm -f $db*
start=$(date +%s)
timeout 200 vktune prefetch --device 0 --shape 576 --shape 840 --shape 2304 --shape 8064 --shape 11760 \
  --shape 16128 --shape 105210 --time 120s --seed 43 --db $db --json > "$OUT/read_cold.json" 2> "$OUT/read_cold.stderr.txt"
echo "prefetch cold exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
start=$(date +%s)
timeout 120 vktune prefetch --device 0 --shape 576 --shape 2304 --shape 8064 --cache hot --time 45s --seed 43 \
  --db $db --json > "$OUT/read_hot.json" 2> "$OUT/read_hot.stderr.txt"
echo "prefetch hot exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
