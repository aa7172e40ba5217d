#pragma once
// Packing of unpacked quantized values into GGUF blocks: the one place that
// knows where each weight's bits go when writing. Used by the quantizer, the
// random-row generator and tests. Values are the stored (unsigned) codes:
//   Q4_0: q in 0..15 (weight = d*(q-8));  Q8_0: q in -128..127;
//   Q5_0: q in 0..31 (weight = d*(q-16));  Q5_1: q in 0..31 (weight = d*q + m);
//   Q2_K: q in 0..3, with 4-bit scales and mins (0..15) per sub-block of 16;
//   Q3_K: q in 0..7 (weight = d*(scale-32)*(q-4)), 6-bit scales (0..63) per sub-block of 16;
//   Q4_K: q in 0..15, Q5_K: q in 0..31, with 6-bit scales/mins per sub-block of 32;
//   Q6_K: q in 0..63 (weight = d*scale*(q-32)), int8 scale per sub-block of 16;
//   IQ4_NL: q in 0..15 (weight = d*iq4nl_values[q]);
//   IQ4_XS: q in 0..15, 6-bit scales (0..63, weight = d*(scale-32)*iq4nl_values[q])
//           per sub-block of 32.
// Weight i of the block is q[i] (i.e. the dequantized order). Extra high bits
// in a code are masked off.
#include <cstdint>

#include "reference/gguf_blocks.hpp"

namespace vktune::ref {

BlockQ4_0 pack_q4_0(std::uint16_t d, const std::uint8_t (&q)[qk4_0]);
BlockQ5_0 pack_q5_0(std::uint16_t d, const std::uint8_t (&q)[qk5_0]);
BlockQ5_1 pack_q5_1(std::uint16_t d, std::uint16_t m, const std::uint8_t (&q)[qk5_0]);
BlockQ8_0 pack_q8_0(std::uint16_t d, const std::int8_t (&q)[qk8_0]);
BlockQ2_K pack_q2_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[16],
                    const std::uint8_t (&mins)[16], const std::uint8_t (&q)[qk_k]);
BlockQ3_K pack_q3_k(std::uint16_t d, const std::uint8_t (&scales)[16], const std::uint8_t (&q)[qk_k]);
BlockQ4_K pack_q4_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]);
BlockQ5_K pack_q5_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]);
BlockQ6_K pack_q6_k(std::uint16_t d, const std::int8_t (&scales)[16], const std::uint8_t (&q)[qk_k]);
BlockIQ4_NL pack_iq4_nl(std::uint16_t d, const std::uint8_t (&q)[qk4_nl]);
BlockIQ4_XS pack_iq4_xs(std::uint16_t d, const std::uint8_t (&scales)[8], const std::uint8_t (&q)[qk_k]);

}  // namespace vktune::ref
