#include "kernels/quantized_activations.hpp"

namespace vktune::kernels {

namespace {
constexpr int kShortSegment = 4096;
}

std::vector<Parameter> quantized_activation_parameters() {
  return {
      {"X_QUANT", {0, 1}, "activations: 0 = fp32 (exact); 1 = quantized to 8 bits per 32 values in shared memory, "
                          "weights enter integer dot products (relative error about 0.5%, needs "
                          "shaderIntegerDotProduct)"},
      {"X_SEGMENT", {kShortSegment, 16384}, "X_QUANT=1: x values quantized into shared memory at a time (16384 only "
                                            "for K > 4096)"},
  };
}

bool uses_quantized_activations(const Config& config) {
  const auto it = config.find("X_QUANT");
  return it != config.end() && it->second == 1;
}

std::string quantized_activation_violation(const Config& config, std::uint32_t k, const vk::DeviceInfo& device) {
  const int segment = config.at("X_SEGMENT");
  if (!uses_quantized_activations(config)) {
    return segment != kShortSegment ? "X_SEGMENT is only varied with X_QUANT=1" : "";
  }
  if (!device.features.integer_dot_product) return "X_QUANT=1 needs shaderIntegerDotProduct";
  if (segment > kShortSegment && k <= static_cast<std::uint32_t>(kShortSegment)) {
    return "X_SEGMENT=" + std::to_string(segment) + " quantizes no more of K=" + std::to_string(k) +
           " than 4096 does, in more shared memory";
  }
  return {};
}

std::uint32_t quantized_activation_shared_bytes(const Config& config, std::uint32_t cols) {
  const auto segment = static_cast<std::uint32_t>(config.at("X_SEGMENT"));
  return cols * (segment + segment / 32 * 8);
}

}  // namespace vktune::kernels
