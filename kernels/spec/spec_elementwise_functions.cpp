#include "kernels/spec/spec_elementwise_functions.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "reference/fp16.hpp"

namespace vktune::kernels::spec {

namespace {

double relu6_of(double x) { return std::min(std::max(x, 0.0), 6.0); }
double softplus_of(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

double gelu_tanh_fn(double x) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double gelu_erf_fn(double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }
double erf_fn(double x) { return std::erf(x); }
double erfc_fn(double x) { return std::erfc(x); }
double sigmoid_fn(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double silu_fn(double x) { return x / (1.0 + std::exp(-x)); }
double relu_fn(double x) { return std::max(x, 0.0); }
double relu6_fn(double x) { return relu6_of(x); }
double hardsigmoid_fn(double x) { return relu6_of(x + 3.0) / 6.0; }
double hardswish_fn(double x) { return x * relu6_of(x + 3.0) / 6.0; }
double softplus_fn(double x) { return softplus_of(x); }
double mish_fn(double x) { return x * std::tanh(softplus_of(x)); }
double to_f32_fn(double x) { return static_cast<double>(static_cast<float>(x)); }
double to_f16_fn(double x) { return static_cast<double>(ref::fp16_to_fp32(ref::fp32_to_fp16(static_cast<float>(x)))); }

}  // namespace

const std::vector<ExpressionFunction>& elementwise_functions() {
  static const std::vector<ExpressionFunction> list{
      {"gelu_tanh", gelu_tanh_fn},     {"gelu_erf", gelu_erf_fn},   {"erf", erf_fn},
      {"erfc", erfc_fn},               {"sigmoid", sigmoid_fn},     {"silu", silu_fn},
      {"relu", relu_fn},               {"relu6", relu6_fn},         {"hardsigmoid", hardsigmoid_fn},
      {"hardswish", hardswish_fn},     {"softplus", softplus_fn},   {"mish", mish_fn},
      {"to_f32", to_f32_fn},           {"to_f16", to_f16_fn},
  };
  return list;
}

}  // namespace vktune::kernels::spec
