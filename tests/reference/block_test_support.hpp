#pragma once
// What the block-format tests of the types added with issue 44 share: fp16
// fields given both as their bits and as the float they stand for (so a test
// never widens a scale through the code under test), little-endian byte
// writes at the offsets the GGUF specification gives, dequantization into a
// poisoned buffer, and an exact comparison. Names are distinct from those of
// dequantize_test.cpp: the suites are built as one unity unit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference/dequantize.hpp"

namespace vktune::ref::block_test {

// An fp16 field: its bits, and its value written out independently.
struct Half {
  std::uint16_t bits;
  float value;
};

inline constexpr Half kHalfOne{0x3c00, 1.0f};
inline constexpr Half kHalfHalf{0x3800, 0.5f};
inline constexpr Half kHalfQuarter{0x3400, 0.25f};
inline constexpr Half kHalfMinusTwo{0xc000, -2.0f};
inline constexpr Half kHalfThird{0x3555, 0x1.554p-2f};       // 0.333251953125, not a short binary fraction
inline constexpr Half kHalfMax{0x7bff, 65504.0f};              // the largest finite fp16
inline constexpr Half kHalfMinusMax{0xfbff, -65504.0f};
inline constexpr Half kHalfTiny{0x0001, 0x1p-24f};              // the smallest subnormal
inline constexpr Half kHalfMinusTiny{0x8001, -0x1p-24f};
inline constexpr Half kHalfMinNormal{0x0400, 0x1p-14f};
inline constexpr Half kHalfLargestSubnormal{0x03ff, 0x1.ff8p-15f};
inline constexpr Half kHalfZero{0x0000, 0.0f};
inline constexpr Half kHalfMinusZero{0x8000, -0.0f};
inline constexpr Half kHalfInf{0x7c00, std::numeric_limits<float>::infinity()};
inline constexpr Half kHalfMinusInf{0xfc00, -std::numeric_limits<float>::infinity()};
inline constexpr Half kHalfNaN{0x7e00, std::numeric_limits<float>::quiet_NaN()};

// The finite extremes every format is checked at: both signs, the largest,
// the smallest subnormal, the edge of the normals, and zeros of both signs.
inline const std::vector<Half>& extreme_halves() {
  static const std::vector<Half> halves{kHalfOne,  kHalfMinusTwo, kHalfThird,     kHalfMax,
                                        kHalfMinusMax, kHalfTiny, kHalfMinusTiny, kHalfMinNormal,
                                        kHalfLargestSubnormal, kHalfZero, kHalfMinusZero};
  return halves;
}

// Infinities and NaN: not rejected, they go through the same arithmetic.
inline const std::vector<Half>& non_finite_halves() {
  static const std::vector<Half> halves{kHalfInf, kHalfMinusInf, kHalfNaN};
  return halves;
}

// A random finite fp16 field of either sign, subnormals and zeros included:
// the exponent field uniform in 0..30.
inline Half random_half(std::mt19937& rng) {
  const auto bits = static_cast<std::uint16_t>(std::uniform_int_distribution<int>(0, 0x7bff)(rng) |
                                               (std::uniform_int_distribution<int>(0, 1)(rng) << 15));
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                  : std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  return {bits, (bits & 0x8000) != 0 ? -magnitude : magnitude};
}

inline void write_le16(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint16_t value) {
  bytes[at] = static_cast<std::uint8_t>(value & 0xff);
  bytes[at + 1] = static_cast<std::uint8_t>(value >> 8);
}

// The weights of one row of `bytes` (a whole number of blocks of `type`),
// written over a poisoned buffer so that an unwritten weight shows.
inline std::vector<float> dequantized(GgmlType type, const std::vector<std::uint8_t>& bytes) {
  const std::size_t k = bytes.size() / block_bytes(type) * block_weights(type);
  std::vector<float> out(k, -12345.0f);
  dequantize_row(type, bytes.data(), out.data(), k);
  return out;
}

// Bitwise equality (so -0 differs from +0); any NaN matches a NaN expected.
inline ::testing::AssertionResult same_float(float actual, float expected) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (std::bit_cast<std::uint32_t>(actual) == std::bit_cast<std::uint32_t>(expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << actual << " (0x" << std::hex
                                       << std::bit_cast<std::uint32_t>(actual) << "), expected " << std::dec
                                       << expected << " (0x" << std::hex << std::bit_cast<std::uint32_t>(expected)
                                       << ")";
}

// Every weight bitwise equal to its expected value; stops at the first miss.
inline void expect_same_weights(const std::vector<float>& actual, const std::vector<float>& expected,
                                 const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t w = 0; w < actual.size(); ++w) ASSERT_TRUE(same_float(actual[w], expected[w])) << what << ", weight " << w;
}

// A seed of its own for each run, printed with every failure.
inline std::uint32_t fresh_seed() { return std::random_device{}(); }

}  // namespace vktune::ref::block_test
