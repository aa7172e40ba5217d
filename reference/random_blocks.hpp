#pragma once
// Random, valid quantized rows for kernel tests, reproducible from a seed
// (std::mt19937_64). Every block has finite fp16 scales, log-uniform in a
// range per type that keeps dequantized weights within about ±1 (2^-7..2^-3
// for Q4_0, 2^-11..2^-7 for Q8_0, 2^-14..2^-10 (Q4_K) or 2^-15..2^-11 (Q5_K)
// for K-quant d and 2^-10..2^-6 for dmin, 2^-16..2^-12 for Q6_K, so fp16
// subnormal scales occur too); Q4_0, Q8_0 and Q6_K scales have either sign,
// K-quant d and dmin are positive. Every block uses every code value of its
// type at least once:
// all 16 nibbles (Q4_0, Q4_K), all 32 five-bit codes (Q5_K), all 64 six-bit
// codes (Q6_K), and -128 and 127 (Q8_0). K-quant 6-bit scales/mins and Q6_K
// int8 scales are uniform over their whole range. F32 rows hold uniform
// values in [-1, 1); F16 rows the same rounded to fp16.
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
