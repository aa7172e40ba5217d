#pragma once
// Quantization of float rows into GGUF blocks: round-to-nearest codes with a
// small search over scales (and mins) that keeps the candidate with the least
// squared error after dequantization. It does not reproduce any other
// quantizer bit for bit; what it guarantees (and tests check) is a small
// round-trip error:
//   Q8_0, Q4_0, Q5_0: per block of 32, symmetric scale d (fp16), codes
//               clamped to -128..127 / -8..7 / -16..15.
//   Q5_1:       per block of 32, y = d*q + m (fp16 d >= 0 and m <= 0), q 0..31.
//   IQ4_NL:     per block of 32, y = d*iq4nl_values[q], q the nearest entry.
//   Q2_K:       per sub-block of 16, y = s*q - m with s, m >= 0 stored as
//               4-bit multiples of the fp16 super-block d and dmin, q 0..3.
//   Q3_K:       per sub-block of 16, y = s*q with q -4..3 and s a signed 6-bit
//               multiple of the fp16 super-block d.
//   Q4_K, Q5_K: per sub-block of 32, y = s*q - m with s, m >= 0 stored as
//               6-bit multiples of the fp16 super-block d and dmin.
//   Q6_K:       per sub-block of 16, y = s*(q-32) with s an int8 multiple of
//               the fp16 super-block d.
//   IQ4_XS:     per sub-block of 32, IQ4_NL's grid with s a signed 6-bit
//               multiple of the fp16 super-block d.
// F32 is copied, F16 rounded to nearest even. Inputs must be finite, and small
// enough that the scales fit in fp16 (|x| below about 60000 for Q8_0/Q4_0).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/gguf_types.hpp"

namespace vktune::ref {

// Quantizes k floats (a whole number of blocks, else Error(usage)) into
// row_bytes(type, k) bytes.
std::vector<std::uint8_t> quantize_row(GgmlType type, const float* src, std::size_t k);

// Quantizes `rows` rows of k floats each, rows*row_bytes(type, k) bytes.
std::vector<std::uint8_t> quantize_rows(GgmlType type, const float* src, std::size_t rows, std::size_t k);

}  // namespace vktune::ref
