// matmul_q4_0 (and matmul_q4_0_f16, x and y fp16): y[M×N] = x[M×K]·Wᵀ with W
// in GGUF Q4_0 rows (18-byte blocks of 32 weights: fp16 d, 16 bytes of
// nibbles; templates/include/q4_0.glsl).
// Spaces, plans and problems are those of every quantized matmul
// (kernels/quant_matmul.hpp).
#include <memory>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 1 in templates/include/quant_block.glsl; 4 units (one qs word, 8 weights) per block;
// BLOCK_PAIRS=1 offered (templates/matvec_q4_0_q8.comp: pairs of blocks per invocation).
QuantFormat q4_0() { return {"matmul_q4_0", "Q4_0", ref::GgmlType::Q4_0, 1, 32, 18, 4, true}; }

const KernelRegistration matmul_q4_0_registration([] { return std::make_unique<QuantMatmul>(q4_0()); });
const KernelRegistration matmul_q4_0_half([] { return std::make_unique<QuantMatmul>(q4_0(), Activations::fp16); });

}  // namespace
}  // namespace vktune::kernels
