#!/usr/bin/env bash
# Installs everything vktune needs to build and test on Debian 12, from
# Debian's packages. Idempotent: packages already present are left as they are.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libvulkan-dev libvulkan-volk-dev libshaderc-dev glslang-dev spirv-tools libspirv-cross-c-shared-dev
  libsqlite3-dev nlohmann-json3-dev libmuparser-dev libgtest-dev libbenchmark-dev libcli11-dev libeigen3-dev
  mesa-vulkan-drivers vulkan-tools vulkan-validationlayers libjemalloc2
  clang libclang-rt-dev
  chromium
  help2man man-db
)

if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
