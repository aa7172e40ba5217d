#include "kernels/half_activations.hpp"

#include "kernels/half_buffers.hpp"

namespace vktune::kernels::half_activations {
namespace {

// fp16's unit roundoff: round to nearest moves a value by at most half an
// ulp, 2^-11 of it.
constexpr double kOutputRounding = 1.0 / 2048.0;

}  // namespace

void add_define(std::vector<ShaderPlan>& stages) {
  for (auto& stage : stages) {
    if (stage.template_file != "dequant_f16.comp") stage.defines.emplace_back(kDefine, "1");
  }
}

Violation device_violation(const vk::DeviceInfo& device) {
  if (device.features.storage_buffer_16bit) return {};
  return legality::kStorage16("fp16 x and y buffers need storageBuffer16BitAccess");
}

HostBuffer rounded_x(std::vector<float>& x) { return half::rounded_buffer("x", x, false); }

Tolerance tolerance(const Tolerance& fp32) {
  return Tolerance{fp32.rel_l2 + kOutputRounding, fp32.max_rel + kOutputRounding};
}

}  // namespace vktune::kernels::half_activations
