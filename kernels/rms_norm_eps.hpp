#pragma once
// The epsilon under the root of every RMS norm vktune's kernels compute,
// y = x / sqrt(mean(x^2) + eps): Llama 2 and 3's and Mistral's 1e-5
// (rmsnorm_mul, add_rmsnorm_mul and the products that take in the norm,
// the _addnorm kernels). A model with another (Qwen's 1e-6) is computed
// with this one; its step's CPU reference reads the same constant.
namespace vktune::kernels {

inline constexpr double kRmsNormEps = 1e-5;

}  // namespace vktune::kernels
