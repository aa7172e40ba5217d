// matmul_q5k: y[M×N] = x[M×K]·Wᵀ with W in GGUF Q5_K rows (176-byte
// super-blocks of 256 weights: Q4_K's scales and nibbles plus a fifth bit per
// weight; templates/include/q5k.glsl). Spaces, plans and problems are those
// of every quantized matmul (kernels/quant_matmul.hpp).
#include <memory>
#include <utility>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 3 in templates/include/quant_block.glsl; 32 units (one qs word, 8 weights) per super-block.
// SUPER_BLOCK=1: templates/matvec_q5k_q8.comp, matmul_q4k's integer layout
// plus the fifth bits (176-byte super-blocks are always 16-byte aligned).
const KernelRegistration matmul_q5k_registration([] {
  QuantFormat format{"matmul_q5k", "Q5_K", ref::GgmlType::Q5_K, 3, 256, 176, 32};
  format.super_block = true;
  return std::make_unique<QuantMatmul>(std::move(format));
});

}  // namespace
}  // namespace vktune::kernels
