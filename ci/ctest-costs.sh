#!/usr/bin/env bash
# Writes ci/ctest-costs.txt, the seed of ctest's schedule, from the log of a
# .ci/run: each test that took at least 3 s there, with its duration, in the
# form of ctest's Testing/Temporary/CTestCostData.txt ("NAME RUNS SECONDS").
# ctest starts the costliest tests first; without the seed a fresh clone runs
# them in the order they are declared, and the last long ones ran alone
# while the other core idled.
#   ci/ctest-costs.sh LOG > ci/ctest-costs.txt
set -euo pipefail
log=${1:?usage: ci/ctest-costs.sh LOG}
sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: (.*[^.]) \.{3,} *Passed +([0-9.]+) sec$/\1\t\2/p' "$log" |
  awk -F'\t' '$2 >= 3 { printf "%s 1 %s\n", $1, $2 }' | sort -t' ' -k1,1
echo "---"
