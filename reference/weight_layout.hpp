#pragma once
// Device layouts of GGUF weights: the same bytes arranged otherwise, for
// kernels that read them faster so. The one place that knows where each
// byte of a weight goes on the device when it is not GGUF's own order.
//
// q6_k_split: GGUF Q6_K blocks are 210 bytes (ql, qh, scales: 208 bytes,
// then the fp16 d), so every other block starts 2 bytes off a 4-byte word
// and most start off a 16-byte vector. The split layout of a matrix of B
// blocks (row by row, as GGUF stores them) puts every block's first 208
// bytes one after another (block i's at 208*i: each 16-byte aligned), then
// the B fp16 d values in the same order (block i's at 208*B + 2*i). Same
// byte count, no value changed (templates/matvec_q6k_q8.comp reads it with
// Q6K_SPLIT=1; the matmul_q6k_split kernels, kernels/matmul_q6k.cpp).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace vktune::ref {

enum class WeightLayout { gguf, q6_k_split };

// "gguf", "q6_k_split"
std::string_view layout_name(WeightLayout layout);

// The bytes of `gguf` (whole blocks of the layout's type, then up to 15
// bytes of zero padding, as a kernel's weight binding is padded) in
// `layout`, the padding kept at the end. Throws Error(usage) where the
// bytes are not whole blocks of Q6_K (q6_k_split).
std::vector<std::uint8_t> to_layout(WeightLayout layout, std::span<const std::uint8_t> gguf);

// The inverse: GGUF's bytes of what to_layout() wrote.
std::vector<std::uint8_t> from_layout(WeightLayout layout, std::span<const std::uint8_t> device);

}  // namespace vktune::ref
