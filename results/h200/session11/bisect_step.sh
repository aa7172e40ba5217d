#!/bin/bash
# Which kernel's winners move the tuned Llama-3-8B chain away from the CPU
# chain (run_step.sh's check failed with relative L2 0.228): the check with
# stored winners for one kernel at a time, baselines for the rest.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PATH=$PWD/.dist/bin:$PATH
nvidia-smi --query-gpu=name,uuid --format=csv > "$OUT/gpu.txt" 2>&1
vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf > "$OUT/bisect.txt" 2>&1
for k in matmul_q4k matmul_q6k attention_decode kv_store rmsnorm_mul rope get_rows_q4k add swiglu argmax; do
  echo "== $k" >> "$OUT/bisect.txt"
  vktune step /tmp/llama3-8b.gguf --device 0 --context 4096 --tuned --check --samples 10 --tuned-kernels $k \
    --db .dist/model.db --seed 3 2>/dev/null | grep -E "tuned +548" >> "$OUT/bisect.txt"
done
