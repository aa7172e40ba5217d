#!/usr/bin/env bash
# Fuzz the GGUF reader for a bounded time (FUZZ_SECONDS, default 60) with
# libFuzzer + ASan + UBSan. Needs clang; without it the job is skipped.
# Exits non-zero when the fuzzer finds a crash (the input is kept under
# build/fuzz/artifacts/).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ not found; skipped"
  exit 0
fi

seconds="${FUZZ_SECONDS:-60}"
jobs="${JOBS:-2}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_gguf_reader gguf_seed_corpus -j "$jobs"

corpus=build/fuzz/corpus/gguf_reader
artifacts=build/fuzz/artifacts
mkdir -p "$corpus" "$artifacts"
build/fuzz/tests/fuzz/gguf_seed_corpus "$corpus"

echo "fuzz: running fuzz_gguf_reader for ${seconds}s on $(ls "$corpus" | wc -l) seed/corpus files"
build/fuzz/tests/fuzz/fuzz_gguf_reader \
  -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus"
echo "fuzz: no crash in ${seconds}s"
