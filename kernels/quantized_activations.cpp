#include "kernels/quantized_activations.hpp"

namespace vktune::kernels {

namespace {
constexpr int kShortSegment = 4096;
}

std::vector<Parameter> quantized_activation_parameters() {
  return {
      {"X_QUANT", {0, 1}, "activations: 0 = as stored (fp32, or fp16 widened) in fp32 arithmetic (exact); 1 = quantized to 8 bits per 32 values in shared memory, "
                          "weights enter integer dot products (relative error about 0.5%, needs "
                          "shaderIntegerDotProduct)"},
      {"X_SEGMENT", {kShortSegment, 16384}, "X_QUANT=1: x values quantized into shared memory at a time (16384 only "
                                            "for K > 4096)"},
  };
}

Config fp32_activations() { return {{"X_QUANT", 0}, {"X_SEGMENT", kShortSegment}}; }
Config quantized_activations() { return {{"X_QUANT", 1}}; }

bool uses_quantized_activations(const Config& config) {
  const auto it = config.find("X_QUANT");
  return it != config.end() && it->second == 1;
}

Violation quantized_activation_violation(const Config& config, const vk::DeviceInfo& device) {
  if (!uses_quantized_activations(config)) {
    if (config.at("X_SEGMENT") == kShortSegment) return {};
    return legality::kUnreadParameter(
        "X_SEGMENT is read by the X_QUANT=1 templates only (pinned to 4096 with X_QUANT=0)");
  }
  if (!device.features.integer_dot_product) return legality::kIntegerDot("X_QUANT=1 needs shaderIntegerDotProduct");
  return {};
}

PruningRule long_segment_rule() {
  return {"x_q8.segment-past-k",
          "X_SEGMENT above 4096 quantizes no more of a row of K <= 4096 than 4096 does, in more shared memory",
          DeviceFilter{},
          [](const Config& c, const Shape& shape) {
            return uses_quantized_activations(c) && c.at("X_SEGMENT") > kShortSegment &&
                   shape.at(2) <= static_cast<std::uint32_t>(kShortSegment);
          }};
}

std::uint32_t quantized_activation_shared_bytes(const Config& config, std::uint32_t cols) {
  const auto segment = static_cast<std::uint32_t>(config.at("X_SEGMENT"));
  return cols * (segment + segment / 32 * 8);
}

}  // namespace vktune::kernels
