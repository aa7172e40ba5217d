// matmul_q5k: y[M×N] = x[M×K]·Wᵀ with W in GGUF Q5_K rows (176-byte
// super-blocks of 256 weights: Q4_K's scales and nibbles plus a fifth bit per
// weight; templates/include/q5k.glsl). Spaces, plans and problems are those
// of every quantized matmul (kernels/quant_matmul.hpp).
#include <memory>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 3 in templates/include/quant_block.glsl; 32 units (one qs word, 8 weights) per super-block.
const KernelRegistration registration([] {
  return std::make_unique<QuantMatmul>(QuantFormat{"matmul_q5k", "Q5_K", ref::GgmlType::Q5_K, 3, 256, 176, 32});
});

}  // namespace
}  // namespace vktune::kernels
