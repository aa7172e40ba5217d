#!/bin/bash
# Session 11 on an H200: `vktune model` on a random-weight Llama-3-8B Q4_K_M
# (`vktune gguf --make-random`: real metadata, shapes and type mix), seeded
# with the committed H200 table for transfer; the spec examples checked.
# Run on the device machine from the repository root with .dist and .gl carried.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PATH=$PWD/.dist/bin:$PATH
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
vktune devices > "$OUT/devices.txt" 2>&1
vktune check examples/pytorch_softmax/softmax.json examples/q4k_matvec/matvec_q4k.json examples/rmsnorm/rmsnorm.json \
  kv_store --device 0 > "$OUT/check.txt" 2>&1
echo "check exit $?" >> "$OUT/check.txt"
time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf
vktune import measurements/nvidia-h200/table.json --db "$OUT/model.db" > "$OUT/import.txt" 2>&1
vktune model /tmp/llama3-8b.gguf --device 0 --time "${MODEL_TIME:-6m}" --context 4096 --prompt 512 \
  --db "$OUT/model.db" --seed 11 --json > "$OUT/model.json" 2> "$OUT/model_stderr.txt"
echo "model exit $?" >> "$OUT/model_stderr.txt"
vktune export --db "$OUT/model.db" --model /tmp/llama3-8b.gguf > "$OUT/model_table.json" 2> "$OUT/export_stderr.txt"
ls -la "$OUT"
