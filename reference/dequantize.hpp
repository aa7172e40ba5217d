#pragma once
// Dequantization of GGUF rows to float, bit-exact with the formats'
// definitions: the same float operations in the same order as ggml's
// reference dequantizers (dequantize_row_* in ggml-quants.c), which every
// other reader is checked against (this library is built with
// -ffp-contract=off, so nothing is fused). Per type, with every product and
// sum rounded to float as it is written, left to right:
//   F32    y = x
//   F16    y = fp16_to_fp32(x)
//   Q4_0   y = (float)(q - 8) * d
//   Q5_0   y = (float)(q - 16) * d
//   Q5_1   y = (float)q * d + m
//   Q8_0   y = (float)q * d
//   Q2_K   dl = d * (float)sc; ml = dmin * (float)mn; y = dl * (float)q - ml
//   Q3_K   dl = d * (float)(sc - 32); y = dl * (float)(q - 4)
//   Q4_K   d1 = d * (float)sc; m1 = dmin * (float)m; y = d1 * (float)q - m1
//   Q5_K   as Q4_K with q = low nibble + 16 * high bit
//   Q6_K   y = (d * (float)scale) * (float)(q - 32)
//   IQ4_NL y = d * (float)iq4nl_values[q]
//   IQ4_XS dl = d * (float)(sc - 32); y = dl * (float)iq4nl_values[q]
// where d, dmin and m are the block's fp16 fields converted to float exactly.
// An fp16 value has 11 significant bits and the codes and scales are small
// integers, so no product above needs more than 23 significant bits (Q6_K:
// 11 + 7 + 5) and none can under- or overflow: every product is exact in
// float for finite fields. The one rounding is the final sum of Q5_1, Q2_K,
// Q4_K and Q5_K, which is why its order (products first, the offset added or
// subtracted last) is the part that must match.
// Fields that are fp16 infinities or NaNs are not rejected: they go through
// the same arithmetic (an infinite scale gives ±inf for a non-zero code and
// NaN for a zero one, a NaN scale NaN), as they do in ggml.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/gguf_types.hpp"

namespace vktune::ref {

// Dequantizes one row of k weights (row_bytes(type, k) bytes at src, any
// alignment) into dst[0..k). Throws Error(usage) if k is not a whole number of
// blocks.
void dequantize_row(GgmlType type, const std::uint8_t* src, float* dst, std::size_t k);

// Dequantizes `rows` consecutive rows of k weights into a rows*k vector.
std::vector<float> dequantize_rows(GgmlType type, const std::uint8_t* src, std::size_t rows, std::size_t k);

}  // namespace vktune::ref
