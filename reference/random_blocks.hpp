#pragma once
// Random, valid quantized rows for kernel tests, reproducible from a seed
// (std::mt19937_64). Every block has finite fp16 scales, log-uniform in a
// range per type that keeps dequantized weights within about ±1, so that fp16
// subnormal scales occur too:
//   Q4_0 2^-7..2^-3, Q5_0 2^-8..2^-4, Q8_0 2^-11..2^-7, IQ4_NL 2^-11..2^-7;
//   Q5_1 d 2^-9..2^-5 and m 2^-10..2^-6;
//   Q2_K d and dmin 2^-10..2^-6; Q3_K 2^-11..2^-7;
//   Q4_K d 2^-14..2^-10, Q5_K d 2^-15..2^-11, both with dmin 2^-10..2^-6;
//   Q6_K 2^-16..2^-12; IQ4_XS 2^-16..2^-12.
// Scales of the symmetric types (Q4_0, Q5_0, Q8_0, Q3_K, Q6_K, IQ4_NL,
// IQ4_XS) and Q5_1's m have either sign; the d and dmin of Q5_1 and the
// K-quants with mins are positive. Every block uses every code value of its
// type at least once: all 16 nibbles (Q4_0, Q4_K, IQ4_NL, IQ4_XS), all 32
// five-bit codes (Q5_0, Q5_1, Q5_K), all 4 two-bit (Q2_K), 8 three-bit (Q3_K)
// and 64 six-bit codes (Q6_K), and -128 and 127 (Q8_0). Sub-block scales and
// mins (4-bit in Q2_K, 6-bit in Q3_K, Q4_K, Q5_K and IQ4_XS, int8 in Q6_K) are
// uniform over their whole range. F32 rows hold uniform values in [-1, 1);
// F16 rows the same rounded to fp16.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/gguf_types.hpp"

namespace vktune::ref {

// What a generated input looks like. `random`: the distributions below.
// `adversarial`: what catches a variant that is right only on benign data.
// Floats keep their range [lo, hi) but spread over 24 octaves below its
// largest magnitude, with signs mixed where the range allows, an eighth of
// them at the range's edges and a sixteenth at the smallest magnitude (never
// exactly zero). Quantized blocks put their scales at the ends of their
// range (fp16 subnormals included) and a third of the blocks have every code
// at the grid's lowest or highest value.
enum class InputKind { random, adversarial };

// rows*row_bytes(type, k) contiguous bytes. Throws Error(usage) when k is not
// a whole number of blocks.
std::vector<std::uint8_t> random_quantized_rows(GgmlType type, std::size_t rows, std::size_t k,
                                                std::uint64_t seed, InputKind kind = InputKind::random);

// rows*k floats uniform in [lo, hi), reproducible from seed.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f,
                                 InputKind kind = InputKind::random);

// `count` adversarial floats in [lo, hi) (see InputKind), never exactly zero.
std::vector<float> adversarial_floats(std::size_t count, std::uint64_t seed, float lo, float hi);

}  // namespace vktune::ref
