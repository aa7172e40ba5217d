#!/usr/bin/env bash
# Issue 39: the search two batches deep (the next batch proposed and compiled
# while the current one is measured; guesses compiled ahead only on a free
# worker), against main at a05cad2 (the batch proposed after the previous
# one was measured), and the acceptance rows beside their pruned spaces, in
# one call on one GPU. Empty databases; --time 90s; seed 21 (session 21's).
# Usage (repository root; .dist and .gl carried, .dist/bin/vktune-a05cad2
# the old binary; OUT set; DEVICE the Vulkan device, 0 unless set):
#   bash measurements/nvidia-h200/session28/pipelined/run.sh "TAG BINARY KERNEL SHAPE ARGS..." ...
# Each row runs --time 90s unless its ARGS give their own --time.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
device=${DEVICE:-0}
res=/tmp/pipelined$device
mkdir -p "$res"
cp "$OUT/gpu.txt" "$res/"
vktune devices --json >"$res/devices.json" 2>&1  # the device's UUID names the GPU of gpu.txt
pack() { tar czf "$OUT/pipelined$device.tgz" -C "$res" .; }  # after every run: a cut-off call keeps what it did
for row in "$@"; do
  read -r tag binary kernel shape args <<<"$row"
  rm -f "$res/$tag.db"*
  start=$(date +%s.%N)
  time=(--time 90s)
  case " $args " in *" --time "*) time=() ;; esac
  # shellcheck disable=SC2086
  "$binary" "$kernel" --device "$device" --shape "$shape" --db "$res/$tag.db" --json "${time[@]}" --seed 21 $args \
    >"$res/$tag.json" 2>"$res/$tag.stderr.txt"
  status=$?
  end=$(date +%s.%N)
  echo "$tag $binary $kernel $shape $args: exit $status wall $(awk "BEGIN {print $end - $start}") s" | tee -a "$res/walls.txt"
  "$binary" export --format csv --db "$res/$tag.db" -o "$res/$tag.csv" >/dev/null 2>&1
  rm -f "$res/$tag.db"*
  pack
done
