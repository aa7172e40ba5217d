#!/bin/bash
# Session 14: the issue-21 specs on this GPU. Arguments SPEC:SECONDS: each
# spec's covering array at its default shapes (the gate runs them at their
# small check shapes on lavapipe), then a tune of its default shapes for
# SECONDS (seed 14), fresh databases. Run from the repository root.
set -u
source measurements/device_env.sh
for arg in "$@"; do
  s=${arg%%:*}; seconds=${arg##*:}; name=$(basename "$s" .json)
  ( time vktune check "$s" --device 0 --variants covering --shapes default ) > /tmp/check_$name.txt 2>&1
  echo "== $name check exit $?" >> "$OUT/specs.txt"
  grep -E "passed|FAIL|real" /tmp/check_$name.txt | tail -3 >> "$OUT/specs.txt"
  vktune "$s" --device 0 --time ${seconds}s --seed 14 --top 1 --db /tmp/$name.db > /tmp/tune_$name.txt 2>&1
  echo "== $name tune exit $?" >> "$OUT/specs.txt"
  grep -E "^\s+1 +[0-9.]+ |winner .* vs" /tmp/tune_$name.txt | cut -c1-160 >> "$OUT/specs.txt"
done
