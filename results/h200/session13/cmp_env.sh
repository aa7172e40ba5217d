# Sourced by this folder's old-vs-new scripts on the device machine, from the
# repository root with .gl and .cmp carried (.cmp/old/vktune, .cmp/new/vktune
# and .cmp/lib/libmuparser.so.2): the Vulkan loader, the NVIDIA driver's ICD,
# and which GPU this call landed on.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.cmp/lib
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
