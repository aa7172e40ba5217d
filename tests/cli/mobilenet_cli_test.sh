#!/bin/sh
# `vktune mobilenet` on the test device at 32×32 (tests/cli/CMakeLists.txt).
# Usage: mobilenet_cli_test.sh VKTUNE CASE WORK_DIR [SPEC_DIR]
#   passes       the chain of baselines (the specs built into vktune) passes
#                its check against the CPU chain
#   wrong_layer  a layer whose bias the device gets off by one fails the
#                check, and the layer-by-layer check names that layer alone
#                (the specs read from SPEC_DIR)
#   winner       a winner tuned for one layer's shape runs in that layer, and
#                the chain still passes; with --baseline it does not
#   tune         --tune tunes the network's distinct layer shapes within its
#                budget, the chain runs their winners and passes its check
#   bad_input    a resolution or batch the chain cannot serve, a malformed
#                --tune, --tune with --baseline: one line, exit 2
set -u
vktune=$1 case=$2 work=$3 specs=${4:-}
rm -rf "$work" && mkdir -p "$work"
out=$work/out.txt err=$work/err.txt
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
# The network has 1 stem + 16 expansions + 17 depthwise + 17 projections + 10
# residual adds (stride 1, in == out channels) + the final 1×1 = 62 layers.
layers=62

run() {
  "$vktune" mobilenet --device 0 --samples 10 "$@" >"$out" 2>"$err"
  echo $?
}

case $case in
  passes)
    rc=$(run --resolution 32 --check --db "$work/none.db")
    [ "$rc" = 0 ] || fail "exit $rc, expected 0"
    grep -q "1x1x1x1280, on .*: $layers dispatches (0 stored winners), $layers barriers" "$out" || fail "not $layers layers"
    grep -q "check: passed; layer by layer $layers of $layers within" "$out" || fail "the check did not pass"
    [ ! -e "$work/none.db" ] || fail "a missing --db was created"
    ;;
  wrong_layer)
    # The specs read from the examples folder rather than the built-in copies.
    rc=$(VKTUNE_TEST_WRONG_CHAIN_LAYER=14 run --resolution 32 --check --db "$work/none.db" --specs "$specs")
    [ "$rc" = 1 ] || fail "exit $rc, expected 1"
    grep -q "check: FAILED; layer by layer $((layers - 1)) of $layers within" "$out" || fail "not one layer failed"
    grep -q "^  failed: layer 14 block 4 expand: relative L2 error" "$out" || fail "layer 14 not named"
    grep -q "the final map vs the CPU chain in double: relative L2 .* (FAILED," "$out" || fail "the final map passed"
    ;;
  winner)
    # Layer 2 (block 0's depthwise) runs at 1,16,16,32,1,16,16.
    "$vktune" "$specs/mobilenet_depthwise/depthwise.json" --device 0 --shape 1,16,16,32,1,16,16 --budget 3 \
      --only WG_X=8 --db "$work/tuned.db" >"$work/tune.txt" 2>&1 || { cat "$work/tune.txt"; fail "the tune failed"; }
    rc=$(run --resolution 32 --check --db "$work/tuned.db")
    [ "$rc" = 0 ] || fail "exit $rc, expected 0"
    grep -q "(1 stored winner)" "$out" || fail "not one stored winner"
    grep -Eq "^ +2  block 0 depthwise +mobilenet_depthwise +1,16,16,32,1,16,16 +winner +[0-9.]+ " "$out" ||
      fail "layer 2 does not run its winner"
    grep -q "the per-layer winners: 1 of $layers layers, their stored times sum to" "$out" || fail "no winners' sum"
    grep -q "baseline ($((layers - 1)) layers): no stored winner" "$out" || fail "the other layers' reason"
    grep -q "check: passed" "$out" || fail "the check did not pass"
    # --baseline: the same database, no winner.
    rc=$(run --resolution 32 --baseline --db "$work/tuned.db")
    [ "$rc" = 0 ] || fail "--baseline: exit $rc, expected 0"
    grep -q "(0 stored winners)" "$out" || fail "--baseline ran a stored winner"
    grep -q "baseline ($layers layers): --baseline" "$out" || fail "--baseline: the layers' reason"
    ;;
  tune)
    # 35 distinct layer shapes at 32x32: 1 stem, 10 depthwise, 19 pointwise, 5 adds.
    budget=20
    start=$(date +%s)
    rc=$(run --resolution 32 --tune ${budget}s --check --db "$work/tuned.db")
    took=$(($(date +%s) - start))
    [ "$rc" = 0 ] || fail "exit $rc, expected 0"
    line=$(grep "^tuned 35 distinct layer shapes in [0-9]* s of a $budget-s budget: " "$out") || fail "no tuning line"
    spent=$(echo "$line" | sed -E 's/^tuned 35 distinct layer shapes in ([0-9]+) s.*/\1/')
    shapes=$(echo "$line" | sed -E 's/.* budget: ([0-9]+) with a winner, ([0-9]+) not reached.*/\1 \2/')
    with=${shapes% *} unreached=${shapes#* }
    # The budget holds (within 1.05 T + 10 s), and the shapes add up.
    [ "$spent" -le $((budget * 105 / 100 + 10)) ] || fail "tuning took $spent s of a $budget-s budget"
    [ $((with + unreached)) = 35 ] || fail "$with with a winner and $unreached unreached are not 35"
    [ "$with" -ge 1 ] || fail "no shape got a winner"
    [ "$(grep -c "^  not reached (give a longer --tune): " "$out")" = "$unreached" ] || fail "unreached shapes not named"
    # Every layer of a shape with a winner runs it: at least one layer each.
    winners=$(sed -nE 's/.*: 62 dispatches \(([0-9]+) stored winners?\).*/\1/p' "$out")
    [ -n "$winners" ] && [ "$winners" -ge "$with" ] || fail "$winners layers ran a winner for $with shapes"
    grep -q "check: passed" "$out" || fail "the check did not pass"
    echo "tuned in $spent s, the whole run $took s"
    ;;
  bad_input)
    rc=$(run --tune 5x --db "$work/none.db")
    [ "$rc" = 2 ] || fail "--tune 5x: exit $rc, expected 2"
    [ "$(wc -l <"$err")" = 1 ] && grep -q -- "--tune: malformed duration '5x'" "$err" || fail "--tune 5x: not one line naming it"
    # --baseline would run none of what --tune finds.
    rc=$(run --tune 10s --baseline --db "$work/none.db")
    [ "$rc" = 2 ] || fail "--tune with --baseline: exit $rc, expected 2"
    [ "$(wc -l <"$err")" = 1 ] && grep -q -- "--baseline excludes --tune" "$err" || fail "--tune with --baseline: not one line"
    # The last: a layer's baseline past the device's workgroup count (8 × 512²
    # pixels of block 0's projection, 4 per workgroup, over 65535), refused
    # before any buffer is made.
    for bad in "--resolution 48" "--resolution 16" "--batch 9" "--resolution 1024 --batch 8"; do
      # shellcheck disable=SC2086
      rc=$(run $bad --db "$work/none.db")
      [ "$rc" = 2 ] || fail "$bad: exit $rc, expected 2"
      [ "$(wc -l <"$err")" = 1 ] || fail "$bad: not one line on stderr"
      grep -q -- "${bad%% *} ${bad#* }" "$err" || grep -q "try a smaller --batch or --resolution" "$err" ||
        fail "$bad: the line does not name the option and its value"
    done
    ;;
  *)
    echo "unknown case $case"
    exit 2
    ;;
esac
echo "ok: $case"
