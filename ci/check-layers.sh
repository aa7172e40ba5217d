#!/usr/bin/env bash
# The layering check: every #include "FOLDER/..." in vktune's sources must
# point down the folder order (docs/ARCHITECTURE.md, "Folders"), and the
# runtime, which applications link alone, may include nothing but itself.
# Usage: ci/check-layers.sh [ROOT]; exits 1 naming each include that breaks
# the order, 0 when none does. ctest runs it (tests/layering/), and runs it
# again on copies with an upward include planted.
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"

# A folder's level: a file may include its own folder or one of a lower
# level, never one of its own level or above. runtime/example/ is an
# application of the runtime (it checks its result with vktune's CPU
# reference), not part of the library behind the wall, so it is not read.
folders="common templates reference harness results kernels runtime engine tuner workloads bench cli"
existing=$(for d in $folders; do [ -d "$d" ] && echo "$d"; done)
# shellcheck disable=SC2086
grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' $existing \
    --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.c' --include='*.inc' --include='*.in' \
    --exclude-dir=example 2>/dev/null |
  awk '
    BEGIN {
      split("common:0 templates:0 reference:1 harness:1 results:1 kernels:2 runtime:2 engine:3 tuner:4 workloads:5 bench:5 cli:6", pairs, " ")
      for (i in pairs) { split(pairs[i], kv, ":"); level[kv[1]] = kv[2] }
    }
    {
      file = $0; sub(/:.*/, "", file)
      rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
      from = file; sub(/\/.*/, "", from)
      target = rest; sub(/^[^"]*"/, "", target); sub(/\/.*/, "", target)
      if (!(target in level)) next
      checked++
      if (target == from) next
      why = ""
      if (from == "runtime") why = "the runtime includes nothing of vktune'"'"'s"
      else if (target == "runtime" && level[from] <= 2) why = "only engine and above may read the runtime"
      else if (level[target] >= level[from]) why = target " is not below " from
      if (why != "") { printf "layering: %s:%s includes %s/ (%s)\n", file, line, target, why; bad++ }
    }
    END {
      if (bad > 0) { printf "layering: %d include(s) point up the folder order, of %d checked\n", bad, checked; exit 1 }
      printf "layering: %d includes checked, every one points down the folder order\n", checked
    }'
