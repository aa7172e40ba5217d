#pragma once
// Measuring a device's ceilings through Vulkan, so results can be reported as
// a fraction of what this device can actually do: streaming read bandwidth
// (GB/s) and fp32 FMA throughput (GFLOP/s).
#include "harness/device.hpp"
#include "tuner/template_library.hpp"

namespace vktune {

struct Ceilings {
  double read_gbps = 0;
  double fp32_gflops = 0;
};

inline constexpr const char* kCeilingRead = "read_bandwidth";
inline constexpr const char* kCeilingFma = "fp32_fma";

Ceilings measure_ceilings(vk::Device& device, const TemplateLibrary& templates);

}  // namespace vktune
