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

stage "configure + build (preset ci: Release, -Werror)"
cmake --preset ci
cmake --build --preset ci -j "$jobs"

# The per-kernel "every valid variant" device tests are what the gate below
# runs for all kernels at once; running both would validate everything twice.
stage "unit and integration tests (ctest)"
ctest --preset ci -j "$jobs" -E 'EveryValidVariant'

stage "correctness gate: a covering array of every kernel's paths, and the committed winners (vktune check)"
bash ci/gate.sh build/ci/vktune

if [ -f ci/fuzz.sh ]; then
  stage "fuzzing the parsers of untrusted input (GGUF, tables, CSV, kernel specs)"
  bash ci/fuzz.sh
fi
stage "done"
