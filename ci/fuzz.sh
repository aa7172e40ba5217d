#!/usr/bin/env bash
# Fuzz every parser of untrusted input for a bounded time with libFuzzer +
# ASan + UBSan: each target FUZZ_SECONDS (default 30), JOBS (default 2) at a
# time, so seven targets take about 4 x 30 s on two cores. Needs clang; without
# it the job is skipped. Exits non-zero when a fuzzer finds a crash (the input
# is kept under build/fuzz/artifacts/, the log under build/fuzz/logs/).
#   FUZZ_TARGETS="fuzz_gguf_reader ..."  runs only those.
#   ci/fuzz.sh --long  the nightly job: 600 s a target (FUZZ_SECONDS still
#                      overrides), on the corpus earlier runs grew and kept
#                      in build/fuzz/corpus/ (the per-push run is 10 s).
#   ci/fuzz.sh --build-only  builds the targets and stops (ci/build-and-test.sh
#                      builds them while the last tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
long=0
build_only=0
for arg in "$@"; do
  case "$arg" in
    --long) long=1 ;;
    --build-only) build_only=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "fuzz: unknown argument '$arg' (--long, --build-only, --help)" >&2; exit 2 ;;
  esac
done

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ not found; skipped"
  exit 0
fi

if [ "$long" -eq 1 ]; then seconds="${FUZZ_SECONDS:-600}"; else seconds="${FUZZ_SECONDS:-30}"; fi
jobs="${JOBS:-2}"
targets=(${FUZZ_TARGETS:-fuzz_gguf_reader fuzz_runtime_json fuzz_runtime_sqlite fuzz_import_table fuzz_measurements_csv fuzz_spec_loader fuzz_sqlite_json_columns})
start=$SECONDS
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "${targets[@]}" gguf_seed_corpus table_seed_db -j "$jobs"
if [ "$build_only" -eq 1 ]; then
  echo "fuzz: built in $((SECONDS - start))s"
  exit 0
fi

bin=build/fuzz/tests/fuzz
work=build/fuzz
rm -rf "$work/logs"
mkdir -p "$work/artifacts" "$work/logs"
# Working corpora start from the committed seeds (tests/fuzz/corpus/: real
# exported tables, cut to a few winners, for both JSON readers; measurements
# CSV) and generated ones (GGUF files; the tables imported into stores for
# the SQLite reader); what the fuzzer adds stays in build/ between runs.
seeds=tests/fuzz/corpus
# Every target's folder, so that FUZZ_TARGETS may name any subset.
for target in fuzz_gguf_reader fuzz_runtime_json fuzz_runtime_sqlite fuzz_import_table fuzz_measurements_csv \
  fuzz_spec_loader fuzz_sqlite_json_columns "${targets[@]}"; do mkdir -p "$work/corpus/$target"; done
cp "$seeds"/json_tables/*.json "$work/corpus/fuzz_runtime_json/"
cp "$seeds"/json_tables/*.json "$work/corpus/fuzz_import_table/"
cp "$seeds"/measurements_csv/*.csv "$work/corpus/fuzz_measurements_csv/"
# Named after their folders too: two examples may share a file name.
for spec in examples/*/*.json; do
  cp "$spec" "$work/corpus/fuzz_spec_loader/$(basename "$(dirname "$spec")")_$(basename "$spec")"
done
"$bin/gguf_seed_corpus" "$work/corpus/fuzz_gguf_reader"
"$bin/table_seed_db" "$work/corpus/fuzz_runtime_sqlite" "$seeds"/json_tables/*.json

# -max_len: tables and models of a few KB reach every branch; larger inputs
# only slow each run. One target per core.
run_one() {
  local target="$1"
  if "$bin/$target" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
       -artifact_prefix="$work/artifacts/$target-" -print_final_stats=1 "$work/corpus/$target" \
       >"$work/logs/$target.log" 2>&1; then
    echo "fuzz: $target: no crash in ${seconds}s, $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$work/logs/$target.log" | grep -o '[0-9]*$') executions"
  else
    echo "fuzz: $target FOUND A CRASH; log: $work/logs/$target.log"
    tail -n 40 "$work/logs/$target.log"
    return 1
  fi
}
export -f run_one
export bin work seconds
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
status=0
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' || status=1
echo "fuzz: done in $((SECONDS - start))s"
exit "$status"
