#pragma once
// Packing of unpacked quantized values into GGUF blocks: the one place that
// knows where each weight's bits go when writing. Used by the quantizer, the
// random-row generator and tests. Values are the stored (unsigned) codes:
//   Q4_0: q in 0..15 (weight = d*(q-8));  Q8_0: q in -128..127;
//   Q4_K: q in 0..15, Q5_K: q in 0..31, with 6-bit scales/mins per sub-block of 32;
//   Q6_K: q in 0..63 (weight = d*scale*(q-32)), int8 scale per sub-block of 16.
// Weight i of the block is q[i] (i.e. the dequantized order). Extra high bits
// in a code are masked off.
#include <cstdint>

#include "reference/gguf_blocks.hpp"

namespace vktune::ref {

BlockQ4_0 pack_q4_0(std::uint16_t d, const std::uint8_t (&q)[qk4_0]);
BlockQ8_0 pack_q8_0(std::uint16_t d, const std::int8_t (&q)[qk8_0]);
BlockQ4_K pack_q4_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]);
BlockQ5_K pack_q5_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]);
BlockQ6_K pack_q6_k(std::uint16_t d, const std::int8_t (&scales)[16], const std::uint8_t (&q)[qk_k]);

}  // namespace vktune::ref
