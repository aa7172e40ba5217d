#!/usr/bin/env sh
# The layering check can fail: on a copy of the sources it passes, then with
# one include planted that points up the order (or through the runtime's
# wall) it must exit 1 and name the file and line.
# Usage: planted_include_test.sh CHECK_SCRIPT SOURCE_DIR WORK_DIR CASE
set -eu
check=$1 src=$2 work=$3 case=$4
rm -rf "$work"; mkdir -p "$work"
for d in common templates reference harness results kernels runtime engine tuner workloads bench cli; do
  [ -d "$src/$d" ] && cp -R "$src/$d" "$work/$d"
done
bash "$check" "$work" >/dev/null || { echo "FAIL: the unplanted copy does not pass"; exit 1; }

case $case in
  upward) file=engine/variant.hpp; include='#include "tuner/session.hpp"'; expect="tuner is not below engine" ;;
  sideways) file=harness/device.hpp; include='#include "results/store.hpp"'; expect="results is not below harness" ;;
  runtime_wall) file=runtime/src/lookup.cpp; include='#include "common/hash.hpp"'; expect="the runtime includes nothing of vktune's" ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
[ -f "$work/$file" ] || { echo "FAIL: $file is not in the tree"; exit 1; }
printf '%s\n' "$include" >>"$work/$file"
line=$(wc -l <"$work/$file" | tr -d ' ')

status=0
out=$(bash "$check" "$work") || status=$?
echo "$out"
[ "$status" -eq 1 ] || { echo "FAIL: exit $status, expected 1"; exit 1; }
echo "$out" | grep -qF "$file:$line includes" || { echo "FAIL: $file:$line not named"; exit 1; }
echo "$out" | grep -qF "$expect" || { echo "FAIL: the reason is not '$expect'"; exit 1; }
echo "PASS: the planted include in $file:$line was refused"
