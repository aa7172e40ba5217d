// matmul_q8_0 (and matmul_q8_0_f16, x and y fp16): y[M×N] = x[M×K]·Wᵀ with W
// in GGUF Q8_0 rows (34-byte blocks of 32 weights: fp16 d, 32 int8 q;
// templates/include/q8_0.glsl). Spaces, plans and problems are those of every
// quantized matmul (kernels/quant_matmul.hpp).
#include <memory>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 2 in templates/include/quant_block.glsl; 4 units (8 weights each) per block;
// BLOCK_PAIRS=1 offered (templates/matvec_q4_0_q8.comp: pairs of blocks per invocation).
QuantFormat q8_0() { return {"matmul_q8_0", "Q8_0", ref::GgmlType::Q8_0, 2, 32, 34, 4, true}; }

const KernelRegistration matmul_q8_0_registration([] { return std::make_unique<QuantMatmul>(q8_0()); });
const KernelRegistration matmul_q8_0_half([] { return std::make_unique<QuantMatmul>(q8_0(), Activations::fp16); });

}  // namespace
}  // namespace vktune::kernels
