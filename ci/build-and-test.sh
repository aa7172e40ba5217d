#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, runs the whole
# test suite on lavapipe (or whatever Vulkan device is first), the kernel
# correctness gate, and the fuzzers of every parser of untrusted input. What CI runs, and what a
# developer runs before pushing.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
start=$SECONDS
stage() { echo "== $* ($((SECONDS - start))s)"; }

stage "dependencies"
bash ci/install-deps.sh

# The ci preset builds in unity mode (CMAKE_UNITY_BUILD: a target's sources
# compiled 8 to a unit, so the heavy headers - CLI11, nlohmann/json, Google
# Test, Vulkan - are parsed once per batch; ci/logs holds the measured build
# times). Developers' presets keep one unit per file; a name two files of one
# target both define shows here first.
stage "configure + build (preset ci: Release, -Werror, unity)"
cmake --preset ci
# One job more than cores: links and the template embedding wait on the disk.
cmake --build --preset ci -j "$((jobs + 1))"
# ctest starts the costliest tests first when it knows their costs; a fresh
# clone has none, so it gets those of a committed run (ci/ctest-costs.sh):
# declared order left the last long tests running alone for 100 s.
mkdir -p build/ci/Testing/Temporary
[ -f build/ci/Testing/Temporary/CTestCostData.txt ] ||
  cp ci/ctest-costs.txt build/ci/Testing/Temporary/CTestCostData.txt

# The per-kernel "every valid variant" device tests are what the gate below
# runs for all kernels at once; running both would validate everything twice.
# ctest and the gate each keep about 1.5 of 2 cores busy (single-threaded
# CPU references between lavapipe's threads), so they run side by side; every
# test's timeout is at least 3x its idle duration, which covers the sharing.
# The gate's report is printed when both are done.
# lavapipe compiles each distinct variant with LLVM, the largest part of
# this stage's work (ci/logs/2026-11-29-perf-lavapipe-check.txt); its
# optimization passes change how fast the CPU runs a shader, not what the
# SPIR-V under test computes, and without them a check of matmul_q5k's
# covering took 29.9 s against 35.9 s (ci/logs/2026-11-29-gallivm-nopt.txt).
export GALLIVM_PERF="${GALLIVM_PERF:-nopt}"
# LLVM's and glslang's compiles spend about a sixth of their time in glibc's
# malloc and free; with jemalloc in its place a covering check of matmul_q6k
# took 32-35 s of CPU against 40-43 (ci/logs/2026-11-29-allocator.txt). An allocator
# changes no result a test asserts on (a heap bug shows differently, not
# less). Preloaded for the tests and the gate only: the fuzzers' sanitizers
# bring their own. awk reads ldconfig's whole list: leaving at the first
# match ended ldconfig by SIGPIPE, which pipefail made the script's exit 141.
jemalloc=$(ldconfig -p | awk '/libjemalloc\.so\.2 / && !found {print $NF; found = 1}')
stage "unit and integration tests (ctest), and beside them the correctness gate: a covering array of every kernel's paths and the committed winners (vktune check)"
gate_log=$(mktemp)
if [ -n "$jemalloc" ]; then export LD_PRELOAD="$jemalloc"; echo "tests and gate with $jemalloc"; fi
# When each of the two ended, for telling which one bounds the stage.
# Once the gate is done, the fuzzers are built beside ctest's last tests
# (ctest ran on alone for 104 s with the cores 10-50% idle:
# ci/logs/2026-11-29-fresh-clone-55ea6f7-vmstat.txt); the fuzz stage below
# then finds them built (or builds them, and says why not, if this failed).
# Built at nice 19 beside the main build instead, they were still building
# when the tests ended, and the build took 445 s against 301 s
# (ci/logs/2026-11-29-fresh-clone-37e2fd1-cold-cache.log.xz). The fuzzers
# then run there too: built 137 s after the gate, they still had 101 s of
# ctest's tail to share, and run after it they added 46 s to the stage
# (ci/logs/2026-11-30-fresh-clone-e332028-shader-cache-disabled.log.xz).
# A fuzzer runs for its time whatever else runs, so sharing the cores costs
# it executions, never the bound.
fuzz_build_log=$(mktemp)
fuzz_log=$(mktemp)
fuzz_status_file=$(mktemp)
echo 0 >"$fuzz_status_file"
(
  code=0
  bash ci/gate.sh build/ci/vktune || code=$?
  echo "gate: ended at $((SECONDS - start))s"
  if [ -f ci/fuzz.sh ]; then
    LD_PRELOAD= bash ci/fuzz.sh --build-only >"$fuzz_build_log" 2>&1 || true
    fuzz_code=0
    LD_PRELOAD= FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash ci/fuzz.sh >"$fuzz_log" 2>&1 || fuzz_code=$?
    echo "$fuzz_code" >"$fuzz_status_file"
    echo "fuzz: ended at $((SECONDS - start))s"
  fi
  exit "$code"
) >"$gate_log" 2>&1 &
gate_pid=$!
ctest_status=0
ctest --preset ci -j "$jobs" -E 'EveryValidVariant' || ctest_status=$?
echo "ctest: ended at $((SECONDS - start))s"
gate_status=0
wait "$gate_pid" || gate_status=$?
unset LD_PRELOAD
stage "the correctness gate's report"
cat "$gate_log"
rm -f "$gate_log"
stage "skipped tests (each said; only those in ci/expected-skips.txt pass)"
skips_status=0
bash ci/check-skips.sh build/ci || skips_status=$?
if [ "$ctest_status" -ne 0 ] || [ "$gate_status" -ne 0 ] || [ "$skips_status" -ne 0 ]; then
  echo "ctest exit code $ctest_status, gate exit code $gate_status, skipped-tests check exit code $skips_status"
  exit 1
fi

if [ -f ci/fuzz.sh ]; then
  stage "fuzzing the parsers of untrusted input (GGUF, tables, CSV, kernel specs), 10 s each (run beside ctest, after the gate)"
  tail -n 1 "$fuzz_build_log"
  cat "$fuzz_log"
  fuzz_status=$(cat "$fuzz_status_file")
  rm -f "$fuzz_build_log" "$fuzz_log" "$fuzz_status_file"
  if [ "$fuzz_status" -ne 0 ]; then
    echo "fuzz exit code $fuzz_status"
    exit 1
  fi
fi
stage "done"
