// matmul_q4k (and matmul_q4k_f16, x and y fp16): y[M×N] = x[M×K]·Wᵀ with W
// in GGUF Q4_K rows (144-byte super-blocks of 256 weights: fp16 d and dmin,
// 6-bit scales and mins of 8 sub-blocks, 4-bit codes;
// templates/include/q4k.glsl). Spaces, plans and problems are those of every
// quantized matmul (kernels/quant_matmul.hpp).
#include <memory>

#include "kernels/quant_matmul.hpp"
#include "kernels/registry.hpp"

namespace vktune::kernels {
namespace {

// QTYPE 5 in templates/include/quant_block.glsl (include/q4k_block.glsl); 32
// units (one qs word, 8 weights) per super-block. SUPER_BLOCK=1:
// templates/matvec_q4k_q8.comp, 4 invocations per 16-byte-aligned
// super-block, a 64-weight chunk each.
QuantFormat q4k() {
  QuantFormat format{"matmul_q4k", "Q4_K", ref::GgmlType::Q4_K, 5, 256, 144, 32};
  format.super_block = true;
  return format;
}

const KernelRegistration matmul_q4k_registration([] { return std::make_unique<QuantMatmul>(q4k()); });
const KernelRegistration matmul_q4k_half([] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp16); });
// ffn_down with the SwiGLU before it, for the Q4_K_M mix's Q4_K and Q6_K
// down weights (matmul_q6k.cpp). Another format's is one line like this,
// left out to keep the CI gate within its time (each costs it about 40 s of
// lavapipe compiles): a model whose ffn_down is another format runs SwiGLU
// and the product apart.
const KernelRegistration matmul_q4k_swiglu([] { return std::make_unique<QuantMatmul>(q4k(), Activations::swiglu); });
// The q/k/v and gate/up products with the residual add and norm before them,
// for the Q4_K_M mix's Q4_K and Q6_K weights alike (matmul_q6k.cpp; the same
// CI-gate cost keeps the other formats' out).
const KernelRegistration matmul_q4k_addnorm([] { return std::make_unique<QuantMatmul>(q4k(), Activations::addnorm); });
// attn_q with its rope, attn_k with its rope and KV-cache store, attn_v with
// its store (kernels/quant_matmul_epilogue.hpp): the Q4_K_M mix's q and k
// weights are Q4_K, its v weights Q4_K or Q6_K (matmul_q6k.cpp). Other
// formats' are one line each, left out for the CI gate's time as above.
const KernelRegistration matmul_q4k_rope(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp32, Epilogue::rope); });
const KernelRegistration matmul_q4k_rope_cache(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp32, Epilogue::rope_cache); });
const KernelRegistration matmul_q4k_cache(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp32, Epilogue::cache); });
// attn_output, and ffn_down after its SwiGLU, with the residual add and the
// next block's norm after them (kernels/quant_matmul_epilogue.hpp): the
// Q4_K_M mix's attn_output weights are Q4_K, its down weights Q4_K or Q6_K
// (matmul_q6k.cpp). Other formats' are one line each, left out as above.
const KernelRegistration matmul_q4k_resnorm(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp32, Epilogue::residual_norm); });
const KernelRegistration matmul_q4k_swiglu_resnorm(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::swiglu, Epilogue::residual_norm); });
// gate and up (rows interleaved) storing their SwiGLU, which ffn_down then
// reads as plain x (a _resnorm product): the Q4_K_M mix's gate and up
// weights are Q4_K. Other formats' are one line each, left out as above.
const KernelRegistration matmul_q4k_glu(
    [] { return std::make_unique<QuantMatmul>(q4k(), Activations::fp32, Epilogue::glu); });

}  // namespace
}  // namespace vktune::kernels
