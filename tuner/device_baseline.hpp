#pragma once
// The baseline a tune, a check, a benchmark and a chain run on a device.
// Kernel::baseline is a device-free choice, what a careful engineer picks by
// hand; on a device whose legality refuses it (a baseline summing 8
// invocations with subgroup shuffles where a subgroup holds 4: lavapipe on a
// 128-bit host, aarch64's NEON or LP_NATIVE_VECTOR_WIDTH=128) it computes
// wrong numbers there. The device's baseline is the kernel's where the device
// allows it, else the legal config nearest to it: the fewest parameters
// changed, the first in the space's enumeration order among those. Where the
// device allows no config of the shape's space at all (a tensor-core-only
// space), the kernel's, whose run then fails and says why.
#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

kernels::Config device_baseline(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                const vk::DeviceInfo& device);

}  // namespace vktune
