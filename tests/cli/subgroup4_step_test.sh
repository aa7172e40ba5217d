#!/bin/sh
# A tune of matmul_q4k, then `vktune step --check --baseline` of the tiny
# random Llama, on lavapipe with
# 4-invocation subgroups (LP_NATIVE_VECTOR_WIDTH=128: what an aarch64 host's
# lavapipe gives): every op's baseline where the device allows it, else the
# nearest legal config (tuner/device_baseline.hpp), and the chain checked op
# by op and against the CPU chain. The kernels' own baselines of matmul_q4k,
# attention_decode and the other products sum 8 invocations with subgroup
# shuffles; run as they were, 3 of the 18 ops computed wrong numbers here
# (logits 1.18 relative L2 from the CPU chain's).
# Usage: subgroup4_step_test.sh VKTUNE WORK_DIR
set -u
vktune=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
out=$work/out.txt err=$work/err.txt
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
export LP_NATIVE_VECTOR_WIDTH=128
"$vktune" devices >"$out" 2>"$err" || fail "vktune devices"
# Elsewhere than lavapipe the variable changes nothing: this test has nothing to test there.
grep -q "subgroup 4 (range 4..4" "$out" || { echo "device 0 has no 4-invocation subgroups: skipped"; exit 77; }
# A tune says which baseline it runs instead of the kernel's, and its
# baseline validates (here one variant besides it).
"$vktune" matmul_q4k --device 0 --shape 1,37,768 --budget 1 --db "$work/tuned.db" >"$out" 2>"$err"
rc=$?
[ "$rc" = 0 ] || fail "tune: exit $rc, expected 0"
grep -q "the kernel's baseline .* is not legal here (REDUCTION=0 sums 8 invocations" "$err" ||
  fail "the tune does not say which baseline it runs"
grep -q "baseline failed" "$out" && fail "the baseline failed"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "seed $seed"
"$vktune" gguf --make-random tiny Q4_K_M -o "$work/tiny.gguf" --seed "$seed" >"$out" 2>"$err" || fail "gguf"
"$vktune" step "$work/tiny.gguf" --device 0 --context 64 --check --baseline --samples 10 --db "$work/none.db" \
  >"$out" 2>"$err"
rc=$?
[ "$rc" = 0 ] || fail "exit $rc, expected 0"
grep -q "check: passed; op by op 18 of 18 within" "$out" || fail "the check did not pass on every op"
echo "ok"
