// matmul_q6k: y[M×N] = x[M×K]·Wᵀ with W in GGUF Q6_K rows (210-byte
// super-blocks of 256 weights: 4+2-bit codes, int8 scales per 16 weights,
// fp16 d; templates/include/q6k.glsl). Spaces, plans and problems are those
// of every quantized matmul (kernels/quant_matmul.hpp). matmul_q6k_split*:
// the same products with W in the split layout (reference/weight_layout.hpp).
#include <memory>
#include <utility>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 4 in templates/include/quant_block.glsl; 16 units (16 weights each) per super-block.
// SUPER_BLOCK=1: templates/matvec_q6k_q8.comp, 4 invocations per super-block
// as matmul_q4k's integer path, each reading the 16-byte vectors that cover
// its bytes of the 2-byte-aligned block.
QuantFormat q6k() {
  QuantFormat format{"matmul_q6k", "Q6_K", ref::GgmlType::Q6_K, 4, 256, 210, 16};
  format.super_block = true;
  return format;
}

// The same weights in the split layout (reference/weight_layout.hpp): every
// block's body 16-byte aligned, so matvec_q6k_q8.comp reads each range as
// its own vectors with no realignment. Decode shapes; `vktune step`
// uploads a Q6_K weight so where it runs these.
QuantFormat q6k_split() {
  QuantFormat format = q6k();
  format.kernel_name = "matmul_q6k_split";
  format.layout = ref::WeightLayout::q6_k_split;
  return format;
}

const KernelRegistration matmul_q6k_registration([] { return std::make_unique<QuantMatmul>(q6k()); });
const KernelRegistration matmul_q6k_swiglu([] { return std::make_unique<QuantMatmul>(q6k(), Activations::swiglu); });
// attn_v and the output head of the Q4_K_M mix (matmul_q4k.cpp).
const KernelRegistration matmul_q6k_addnorm([] { return std::make_unique<QuantMatmul>(q6k(), Activations::addnorm); });
// attn_v with its KV-cache store, for the Q4_K_M mix's Q6_K value weights
// (kernels/quant_matmul_epilogue.hpp; matmul_q4k.cpp has the Q4_K ones).
const KernelRegistration matmul_q6k_cache(
    [] { return std::make_unique<QuantMatmul>(q6k(), Activations::fp32, Epilogue::cache); });
// ffn_down after its SwiGLU with the residual add and the next norm after it,
// for the Q4_K_M mix's Q6_K down weights (matmul_q4k.cpp has the Q4_K one).
const KernelRegistration matmul_q6k_swiglu_resnorm(
    [] { return std::make_unique<QuantMatmul>(q6k(), Activations::swiglu, Epilogue::residual_norm); });
// ffn_down reading the SwiGLU its gate and up product stored (matmul_q4k_glu),
// with the residual add and the next norm after it.
const KernelRegistration matmul_q6k_resnorm(
    [] { return std::make_unique<QuantMatmul>(q6k(), Activations::fp32, Epilogue::residual_norm); });

// The decode step's Q6_K products (the output head, attn_v, ffn_down) in the split layout.
const KernelRegistration matmul_q6k_split([] { return std::make_unique<QuantMatmul>(q6k_split()); });
const KernelRegistration matmul_q6k_split_cache(
    [] { return std::make_unique<QuantMatmul>(q6k_split(), Activations::fp32, Epilogue::cache); });
const KernelRegistration matmul_q6k_split_swiglu(
    [] { return std::make_unique<QuantMatmul>(q6k_split(), Activations::swiglu); });
const KernelRegistration matmul_q6k_split_swiglu_resnorm(
    [] { return std::make_unique<QuantMatmul>(q6k_split(), Activations::swiglu, Epilogue::residual_norm); });
const KernelRegistration matmul_q6k_split_resnorm(
    [] { return std::make_unique<QuantMatmul>(q6k_split(), Activations::fp32, Epilogue::residual_norm); });

}  // namespace
}  // namespace vktune::kernels
