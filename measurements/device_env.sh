# Sourced by the scripts under measurements/ on the device machine, from the
# repository root with .dist and .gl carried: the Vulkan loader, the NVIDIA
# driver's ICD, vktune on the PATH, and which GPU this call landed on.
# Once per machine: scripts run side by side on several GPUs source it too.
if [ ! -e /tmp/.vktune_loader_unpacked ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  touch /tmp/.vktune_loader_unpacked
fi
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PATH=$PWD/.dist/bin:$PATH
# The shared libraries vktune links that the device machine lacks (muparser,
# libgomp, Google Benchmark), copied beside the binaries.
export LD_LIBRARY_PATH=$PWD/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
# run LABEL COMMAND...: runs the command and appends "LABEL exit CODE in N s"
# to $OUT/log.txt (scripts from session 48 on; earlier ones define their own).
run() {
  local label=$1; shift
  local start=$(date +%s)
  "$@"
  echo "$label exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
# start_call: what every call does first: a lock directory of its own,
# $OUT/log.txt emptied, vktune's version saved (session 48 on).
start_call() {
  export VKTUNE_LOCK_DIR=/tmp/lk
  mkdir -p "$VKTUNE_LOCK_DIR"
  : > "$OUT/log.txt"
  vktune --version > "$OUT/version.txt" 2>&1
}
# import_table DB: the committed H200 table imported alone into DB (emptied
# first), its exit logged.
import_table() {
  rm -f "$1"*
  vktune import measurements/nvidia-h200/table.json --db "$1" >> "$OUT/log.txt" 2>&1
  echo "import $1 exit $?" >> "$OUT/log.txt"
}
# make_llama: the random-weight Llama-3-8B Q4_K_M the decode calls step, at /tmp/l.gguf.
make_llama() {
  run "gguf --make-random llama3-8b" vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/l.gguf >> "$OUT/log.txt" 2>&1
}
