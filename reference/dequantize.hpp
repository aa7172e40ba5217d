#pragma once
// Dequantization of GGUF rows to float, bit-exact with the formats'
// definitions: the same float operations in the same order (this library is
// built with -ffp-contract=off, so nothing is fused). Per type, with every
// product and difference rounded to float as it is written:
//   F32   y = x
//   F16   y = fp16_to_fp32(x)
//   Q4_0  y = (float)(q - 8) * d
//   Q8_0  y = (float)q * d
//   Q4_K  d1 = d * (float)sc; m1 = dmin * (float)m; y = d1 * (float)q - m1
//   Q5_K  as Q4_K with q = low nibble + 16 * high bit
//   Q6_K  y = (d * (float)scale) * (float)(q - 32)
// where d and dmin are the block's fp16 scales converted to float.
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
