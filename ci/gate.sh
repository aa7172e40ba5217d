#!/usr/bin/env bash
# The correctness gate, on Vulkan device 0 (lavapipe on a machine without a
# GPU), against the CPU reference, at the kernels' check shapes: for each
# path of each kernel's space as a tune on this device searches it (the
# legal configs less the pruning rules keyed to every device; the rules
# measured on the H200 do not apply here), a pairwise covering array (every
# value of every parameter, every pair of values of two), the baseline, and
# every winner committed in results/h200/table.json (at the smallest shape of
# its space it runs on where no check shape admits it). Fails when any
# variant is wrong.
#   ci/gate.sh [path/to/vktune] [extra vktune check options...]
set -euo pipefail
cd "$(dirname "$0")/.."
vktune=${1:-build/release/vktune}
shift || true
exec "$vktune" check --device "${VKTUNE_GATE_DEVICE:-0}" --variants covering --space pruned --shapes ci \
  --table results/h200/table.json "$@"
