#!/usr/bin/env bash
# Issue 39's acceptance on one H200: each kernel and shape tuned from an
# empty database with --space full and --time 90s (the stand-in for a GPU no
# pruning rule was learned on), and in the same call with the pruned space
# (--time 45s; these spaces hold 200-1,400 configs) for the best to compare
# with. Every run's wall time, its --json report, its stderr (the live line)
# and every measurement as CSV land in $OUT/acceptance/.
# Usage: run_acceptance.sh VKTUNE OUT "KERNEL SHAPE" ...
set -u
vktune=$1 out=$2
shift 2
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
for pair in "$@"; do
  read -r kernel shape <<<"$pair"
  for space in full pruned; do
    budget=90s
    [ "$space" = pruned ] && budget=45s
    tag="${kernel}_${shape//,/x}_${space}"
    rm -f "$out/$tag.db"*
    start=$(date +%s.%N)
    "$vktune" "$kernel" --device 0 --shape "$shape" --space "$space" --time "$budget" --seed 21 \
      --db "$out/$tag.db" --json >"$out/$tag.json" 2>"$out/$tag.stderr.txt"
    status=$?
    end=$(date +%s.%N)
    echo "$tag exit $status wall $(awk "BEGIN {print $end - $start}") s" | tee -a "$out/walls.txt"
    "$vktune" export --format csv --db "$out/$tag.db" -o "$out/$tag.csv" >/dev/null 2>&1
    rm -f "$out/$tag.db"*
  done
done
