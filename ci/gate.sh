#!/usr/bin/env bash
# The correctness gate: every valid variant of every kernel, at the kernels'
# check shapes, validated against the CPU reference on Vulkan device 0
# (lavapipe on a machine without a GPU). Fails when any variant is wrong.
#   ci/gate.sh [path/to/vktune] [extra vktune check options...]
set -euo pipefail
cd "$(dirname "$0")/.."
vktune=${1:-build/release/vktune}
shift || true
exec "$vktune" check --device "${VKTUNE_GATE_DEVICE:-0}" --variants all --shapes ci "$@"
