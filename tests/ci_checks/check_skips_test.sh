#!/bin/sh
# ci/check-skips.sh on planted ctest logs: a skip the list does not name
# fails, a listed skip passes, and a listed test that ran is said and
# passes (it may skip only on machines that lack what it needs).
# usage: check_skips_test.sh SOURCE_DIR WORK_DIR
set -eu
source_dir=$1 work=$2
rm -rf "$work"
mkdir -p "$work/ci" "$work/build/Testing/Temporary"
cp "$source_dir/ci/check-skips.sh" "$work/ci/"
cat >"$work/build/Testing/Temporary/LastTest.log" <<'LOG'
[ RUN      ] Suite.Skips
/src/x_test.cpp:12: Skipped
no user namespaces in this container

[  SKIPPED ] Suite.Skips (0 ms)
[ RUN      ] Suite.Runs
[       OK ] Suite.Runs (1 ms)
LOG
expect() {  # expect CODE WORD LIST...: the list, the exit code, a word of the output
  code=$1 word=$2
  shift 2
  printf '%s\n' "# test list" "$@" >"$work/ci/expected-skips.txt"
  status=0
  out=$(bash "$work/ci/check-skips.sh" "$work/build" 2>&1) || status=$?
  if [ "$status" -ne "$code" ] || ! printf '%s' "$out" | grep -q "$word"; then
    echo "with list [$*]: exit $status (wanted $code), output:"
    echo "$out"
    exit 1
  fi
}
expect 1 "Suite.Skips (NOT EXPECTED): no user namespaces in this container"
expect 0 "Suite.Skips (expected)" "Suite.Skips  why"
expect 0 "Suite.Runs (may skip elsewhere) ran here" "Suite.Skips  why" "Suite.Runs  why"
echo "check-skips: all three cases behave"
