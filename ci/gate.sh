#!/usr/bin/env bash
# The correctness gate, on Vulkan device 0 (lavapipe on a machine without a
# GPU), against the CPU reference, at the kernels' check shapes: for each
# path of each kernel's space as a tune on this device searches it (the
# legal configs less the pruning rules keyed to every device; the rules
# measured on the H200 do not apply here), a pairwise covering array with
# the shape as one more factor (every value of every parameter at each check
# shape, every pair of values of two at one of them at least; every value
# only for the fp16- and SwiGLU-activation products, whose fp32 siblings
# take the pairs: kernels::Path::covering_strength), the baseline, and
# every winner committed in measurements/nvidia-h200/table.json (at the smallest shape of
# its space it runs on where no check shape admits it), with the modules as
# they ship (--bounds off). Then a bounds-instrumented check (--bounds on:
# any load or store past a buffer's data fails, however far; the guard bands
# reach 1-4 MiB) of $VKTUNE_GATE_BOUNDS_KERNELS kernels (default 6) drawn
# with a fresh seed (printed; $VKTUNE_GATE_BOUNDS_SEED repeats one): one
# variant per shape and their table winners. Instrumented modules compile
# about ten times slower on lavapipe (llvmpipe splits a shader with barriers
# into coroutines, and each checked access adds blocks): the whole covering
# array instrumented would take the gate from about 7 to about 30 minutes,
# and with every kernel's sample and table winners the fresh-clone run of
# 9dfcfef took 1,392 s, its gate ending at 1,275 s against 780 s before
# (ci/logs/2026-11-30-fresh-clone-9dfcfef-shader-cache-disabled.log): past
# CI's 20 minutes. Each push checks a different draw. Fails when any variant is
# wrong.
#
# One `vktune check` keeps about one core busy (the double-precision
# references and the compiles are single-threaded), so the kernels are dealt
# round-robin to one check per core ($VKTUNE_GATE_JOBS overrides), run side
# by side; their reports are printed one after the other, and the gate's exit
# code is the largest of theirs.
#   ci/gate.sh [path/to/vktune] [extra vktune check options...]
set -euo pipefail
cd "$(dirname "$0")/.."
vktune=${1:-build/release/vktune}
shift || true
jobs=${VKTUNE_GATE_JOBS:-$(nproc 2>/dev/null || echo 2)}
bounds_seed=${VKTUNE_GATE_BOUNDS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

mapfile -t kernels < <("$vktune" list --names)
[ ${#kernels[@]} -gt 0 ] || { echo "gate: '$vktune list --names' named no kernel" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

status=0
# One pass over every kernel: `vktune check` with these options, in $jobs
# checks side by side.
pass() {
  local name=$1
  shift
  local pids=() g i code
  for ((g = 0; g < jobs && g < ${#kernels[@]}; g++)); do
    local group=()
    for ((i = g; i < ${#kernels[@]}; i += jobs)); do group+=("${kernels[i]}"); done
    "$vktune" check "${group[@]}" --device "${VKTUNE_GATE_DEVICE:-0}" --space pruned --shapes ci \
      --table measurements/nvidia-h200/table.json "$@" >"$out/$g.out" 2>"$out/$g.err" &
    pids+=($!)
  done
  for ((g = 0; g < ${#pids[@]}; g++)); do
    code=0
    wait "${pids[g]}" || code=$?
    cat "$out/$g.err" >&2
    cat "$out/$g.out"
    [ "$code" -gt "$status" ] && status=$code
  done
  echo "gate: $name: ${#kernels[@]} kernels in ${#pids[@]} checks side by side, exit code $status so far"
}

pass "covering array" --variants covering --bounds off "$@"
# The draw: the kernels in an order drawn from the seed, the first N.
mapfile -t kernels < <(printf '%s\n' "${kernels[@]}" |
  awk -v seed="$bounds_seed" 'BEGIN { srand(seed % 2147483647) } { print rand() "\t" $0 }' | sort -k1,1 |
  head -n "${VKTUNE_GATE_BOUNDS_KERNELS:-6}" | cut -f2)
pass "bounds-instrumented, one variant per shape and the table's winners of ${kernels[*]} (seed $bounds_seed)" \
  --variants sample:1 --seed "$bounds_seed" --bounds on "$@"
echo "gate: exit code $status"
exit "$status"
