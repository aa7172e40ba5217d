#!/bin/bash
# Session 14: attention_decode's walk path with its split merge from
# include/attention_split_merge.glsl, against the templates before
# (old_templates/, carried). The walk path with splits and the one-pass merge
# (MERGE=1), 40 random configs (the same for both: same space, seed) at two
# default shapes, fresh databases; then the correctness gate's covering array
# of attention_decode at its check shapes with the new templates. Pairs of
# configs compared with compare_csv.py (by LEAN). Run twice: the first
# version branched past the last split for LEAN=0 too
# (h100_attention_merge_first*); the second rereads there as before.
set -u
source results/h200/session12/device_env.sh
for t in old_templates templates; do
  vktune attention_decode --device 0 --templates $t --shape 32,8,128,4096 --shape 32,8,128,8192 --only STREAM=0 \
    --only MMA=0 --only MERGE=1 --only KV_CHUNK=64,128,256,512 --strategy random --budget 40 --no-transfer \
    --seed 14 --top 5 --db /tmp/att_$t.db > /tmp/att_$t.txt 2>&1
  echo "== $t exit $?" >> "$OUT/attention.txt"
  grep -E "^\s+[0-9]+ +[0-9.]+ |winner|space:" /tmp/att_$t.txt | cut -c1-250 >> "$OUT/attention.txt"
  vktune export --db /tmp/att_$t.db --format csv -o "$OUT/att_$t.csv" >> "$OUT/attention.txt" 2>&1
done
vktune check attention_decode --device 0 --variants covering 2>&1 | tail -3 >> "$OUT/attention.txt"
python3 results/h200/session14/compare_csv.py "$OUT/att_old_templates.csv" "$OUT/att_templates.csv" LEAN >> "$OUT/attention.txt"
