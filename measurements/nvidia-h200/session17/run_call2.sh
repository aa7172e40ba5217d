#!/bin/bash
# Session 17, call 2: MobileNet V2's chain on an H200 before and after the
# pointwise split path, one GPU. db_old: the stem, depthwise (with NB) and
# pointwise tuned with the paths before the split (--only PATH=0,1); the
# chain run and checked on it. db_new: a copy, pointwise tuned again over
# every path (measurements resume; the split path is new); the chain again.
set -u
source measurements/device_env.sh
old=/tmp/mobilenet_old.db new=/tmp/mobilenet_new.db
tune() {  # log db spec [args]
  local log=$1 db=$2 spec=$3; shift 3
  vktune "$spec" --device 0 --seed 17 --top 3 --db "$db" "$@" > /tmp/t.txt 2>&1
  { echo "== $spec $* exit $?"; grep -E "winner .* vs|^  rank|^ +1  " /tmp/t.txt | cut -c1-230; } >> "$OUT/$log"
}
tune tunes_old.txt $old examples/mobilenet_stem/stem.json --time ${STEM_SECONDS:-25}s
tune tunes_old.txt $old examples/mobilenet_depthwise/depthwise.json --time ${DW_SECONDS:-60}s
tune tunes_old.txt $old examples/mobilenet_pointwise/pointwise.json --time ${PW_SECONDS:-90}s --only PATH=0,1
vktune mobilenet --device 0 --db $old --check > "$OUT/chain_old.txt" 2>&1; echo "== exit $?" >> "$OUT/chain_old.txt"
cp $old $new
tune tunes_new.txt $new examples/mobilenet_pointwise/pointwise.json --time ${PW_SECONDS:-90}s
vktune mobilenet --device 0 --db $new --check > "$OUT/chain_new.txt" 2>&1; echo "== exit $?" >> "$OUT/chain_new.txt"
vktune export --db $new > "$OUT/mobilenet_table.json" 2>> "$OUT/tunes_new.txt"
