#!/usr/bin/env bash
# Skipped tests are said, and only the expected ones pass: prints every
# GoogleTest case that skipped in the last ctest run of BUILD_DIR (its name
# and the reason it gave), and exits 1 when one of them is not listed in
# ci/expected-skips.txt (one name a line, then on what machines it skips and
# why). A listed test may also run (where the machine has what it needs);
# that is said too. Usage: ci/check-skips.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
log="$build/Testing/Temporary/LastTest.log"
[ -f "$log" ] || { echo "check-skips: no ctest log at $log" >&2; exit 2; }
expected=$({ grep -v '^#' ci/expected-skips.txt || true; } | awk 'NF {print $1}' | sort -u)
# gtest's per-case line: "[  SKIPPED ] Suite.Name (12 ms)".
skipped=$(grep -aE '^\[  SKIPPED \] [A-Za-z_][A-Za-z0-9_/]*\.[A-Za-z0-9_/.]+ \(' "$log" | awk '{print $4}' | sort -u || true)
count=$(printf '%s' "$skipped" | grep -c . || true)
echo "skipped tests: $count"
status=0
for name in $skipped; do
  # The reason gtest printed for it: the line after its "Skipped" marker.
  reason=$(awk -v n="$name" '
    $0 == "[ RUN      ] " n { inside = 1; next }
    inside && /Skipped$/ { getline; print; exit }
    inside && /^\[  SKIPPED \]/ { exit }' "$log")
  if printf '%s\n' "$expected" | grep -qx "$name"; then
    echo "  $name (expected): $reason"
  else
    echo "  $name (NOT EXPECTED): $reason"
    status=1
  fi
done
ran=$(grep -aE '^\[       OK \] ' "$log" | awk '{print $4}' | sort -u || true)
for name in $expected; do
  if printf '%s\n' "$ran" | grep -qx "$name"; then echo "  $name (may skip elsewhere) ran here"; fi
done
[ "$status" -eq 0 ] || echo "check-skips: unexpected skips; see above"
exit "$status"
