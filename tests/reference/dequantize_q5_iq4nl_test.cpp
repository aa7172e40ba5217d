// Q5_0, Q5_1 and IQ4_NL (blocks of 32 weights): blocks written byte by byte
// here at the offsets of the published layouts, never through the library's
// packing code, and every weight compared bitwise with the format's formula
// evaluated here on the codes and fp16 values the test chose.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "block_test_support.hpp"
#include "reference/block_pack.hpp"

namespace vktune::ref {
namespace {

using namespace block_test;

using Codes32 = std::array<int, 32>;

// IQ4_NL's grid as the published format lists it.
constexpr int kIq4nlGrid[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// Q5_0: [d:2][qh:4][qs:16]; Q5_1: [d:2][m:2][qh:4][qs:16]. Weight j < 16 is
// the low nibble of qs[j], 16 + j the high nibble; its fifth bit is bit j of
// the little-endian 32-bit qh.
std::vector<std::uint8_t> q5_bytes(GgmlType type, Half d, Half m, const Codes32& codes) {
  const bool q5_1 = type == GgmlType::Q5_1;
  const std::size_t qh = q5_1 ? 4 : 2;
  std::vector<std::uint8_t> bytes(q5_1 ? 24 : 22);
  write_le16(bytes, 0, d.bits);
  if (q5_1) write_le16(bytes, 2, m.bits);
  for (int j = 0; j < 16; ++j) bytes[qh + 4 + j] = static_cast<std::uint8_t>((codes[j] & 15) | ((codes[j + 16] & 15) << 4));
  for (int j = 0; j < 32; ++j) bytes[qh + j / 8] = static_cast<std::uint8_t>(bytes[qh + j / 8] | (((codes[j] >> 4) & 1) << (j % 8)));
  return bytes;
}

// Q5_0: y = (float)(q - 16) * d; Q5_1: y = (float)q * d + m.
std::vector<float> q5_expected(GgmlType type, Half d, Half m, const Codes32& codes) {
  std::vector<float> y(32);
  for (int j = 0; j < 32; ++j) {
    y[j] = type == GgmlType::Q5_0 ? static_cast<float>(codes[j] - 16) * d.value
                                  : static_cast<float>(codes[j]) * d.value + m.value;
  }
  return y;
}

// IQ4_NL: [d:2][qs:16], nibbles as Q4_0's; y = d * grid[q].
std::vector<std::uint8_t> iq4nl_bytes(Half d, const Codes32& codes) {
  std::vector<std::uint8_t> bytes(18);
  write_le16(bytes, 0, d.bits);
  for (int j = 0; j < 16; ++j) bytes[2 + j] = static_cast<std::uint8_t>(codes[j] | (codes[j + 16] << 4));
  return bytes;
}

std::vector<float> iq4nl_expected(Half d, const Codes32& codes) {
  std::vector<float> y(32);
  for (int j = 0; j < 32; ++j) y[j] = d.value * static_cast<float>(kIq4nlGrid[codes[j]]);
  return y;
}

// Every value 0..levels-1 at least once, in a scattered order.
Codes32 covering_codes(int levels, int salt = 0) {
  Codes32 codes{};
  for (int j = 0; j < 32; ++j) codes[j] = (7 * j + salt) % levels;
  return codes;
}

Codes32 random_codes(std::mt19937& rng, int levels) {
  Codes32 codes{};
  for (auto& c : codes) c = std::uniform_int_distribution<int>(0, levels - 1)(rng);
  return codes;
}

TEST(DequantizeQ5_0, WorkedBlockWithEveryCode) {
  Codes32 codes{};
  for (int j = 0; j < 32; ++j) codes[j] = j;
  const auto y = dequantized(GgmlType::Q5_0, q5_bytes(GgmlType::Q5_0, kHalfHalf, {}, codes));
  expect_same_weights(y, q5_expected(GgmlType::Q5_0, kHalfHalf, {}, codes), "Q5_0");
  EXPECT_EQ(y[0], -8.0f);  // code 0: (0 - 16) * 0.5
  EXPECT_EQ(y[16], 0.0f);  // code 16, the one with only its fifth bit set
  EXPECT_EQ(y[31], 7.5f);
}

TEST(DequantizeQ5_1, WorkedBlockWithEveryCode) {
  Codes32 codes{};
  for (int j = 0; j < 32; ++j) codes[j] = 31 - j;
  const auto y = dequantized(GgmlType::Q5_1, q5_bytes(GgmlType::Q5_1, kHalfQuarter, kHalfMinusTwo, codes));
  expect_same_weights(y, q5_expected(GgmlType::Q5_1, kHalfQuarter, kHalfMinusTwo, codes), "Q5_1");
  EXPECT_EQ(y[0], 5.75f);  // 31 * 0.25 - 2: m is added
  EXPECT_EQ(y[31], -2.0f);
}

// Each single bit of qs and qh moves exactly the weight the layout names, by
// the bit's worth; the baseline is every code 16 (d = 1, m = 0).
void check_every_q5_bit(GgmlType type) {
  const std::size_t qh = type == GgmlType::Q5_1 ? 4 : 2;
  Codes32 base{};
  base.fill(16);
  const float base_weight = type == GgmlType::Q5_0 ? 0.0f : 16.0f;
  const auto baseline = q5_bytes(type, kHalfOne, kHalfZero, base);
  for (std::size_t byte = qh; byte < qh + 20; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[byte] = static_cast<std::uint8_t>(block[byte] ^ (1u << bit));
      int target = 0;
      float delta = 0;
      if (byte < qh + 4) {  // qh: bit j of the word is the fifth bit (16) of weight j, set in the baseline
        target = static_cast<int>(8 * (byte - qh)) + bit;
        delta = -16.0f;
      } else {  // qs[j]: low nibble weight j, high nibble weight 16 + j
        target = static_cast<int>(byte - qh - 4) + (bit >= 4 ? 16 : 0);
        delta = std::ldexp(1.0f, bit % 4);
      }
      const auto y = dequantized(type, block);
      for (int w = 0; w < 32; ++w) {
        ASSERT_TRUE(same_float(y[w], w == target ? base_weight + delta : base_weight))
            << type_name(type) << " byte " << byte << " bit " << bit << " weight " << w;
      }
    }
  }
}

TEST(DequantizeQ5_0, EveryBitPosition) { check_every_q5_bit(GgmlType::Q5_0); }
TEST(DequantizeQ5_1, EveryBitPosition) { check_every_q5_bit(GgmlType::Q5_1); }

// fp16 extremes (largest, subnormals, both zeros) with every code, exactly.
TEST(DequantizeQ5_0, ExtremeScales) {
  for (const Half& d : extreme_halves()) {
    const auto codes = covering_codes(32, d.bits % 32);
    expect_same_weights(dequantized(GgmlType::Q5_0, q5_bytes(GgmlType::Q5_0, d, {}, codes)),
                        q5_expected(GgmlType::Q5_0, d, {}, codes), "Q5_0 d=" + std::to_string(d.value));
  }
  // A negative zero scale: codes above 16 give -0, those below +0, 16 itself -0.
  Codes32 codes{};
  codes.fill(16);
  codes[0] = 0;
  codes[1] = 31;
  const auto y = dequantized(GgmlType::Q5_0, q5_bytes(GgmlType::Q5_0, kHalfMinusZero, {}, codes));
  EXPECT_FALSE(std::signbit(y[0]));
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_TRUE(std::signbit(y[2]));
}

TEST(DequantizeQ5_1, ExtremeScalesAndOffsets) {
  for (const Half& d : extreme_halves()) {
    for (const Half& m : extreme_halves()) {
      const auto codes = covering_codes(32, (d.bits + m.bits) % 32);
      expect_same_weights(dequantized(GgmlType::Q5_1, q5_bytes(GgmlType::Q5_1, d, m, codes)),
                          q5_expected(GgmlType::Q5_1, d, m, codes),
                          "Q5_1 d=" + std::to_string(d.value) + " m=" + std::to_string(m.value));
    }
  }
}

// d*q is exact (11 + 5 bits), so the one rounding is adding m: each weight
// must be the correctly rounded d*q + m, whatever the order a reader chose
// for anything else.
TEST(DequantizeQ5_1, OnlyTheAdditionRounds) {
  const Codes32 codes = covering_codes(32);
  const auto y = dequantized(GgmlType::Q5_1, q5_bytes(GgmlType::Q5_1, kHalfThird, kHalfMax, codes));
  int inexact = 0;
  for (int j = 0; j < 32; ++j) {
    const double exact = 0.333251953125 * codes[j] + 65504.0;  // exact in double
    ASSERT_EQ(y[j], static_cast<float>(exact)) << j;
    if (static_cast<double>(static_cast<float>(exact)) != exact) ++inexact;
  }
  EXPECT_GT(inexact, 0) << "the block no longer exercises rounding of the addition";
}

// Infinite and NaN fields are not rejected: the formula's float arithmetic
// runs on them (inf * 0 is NaN, a NaN scale makes every weight NaN).
TEST(DequantizeQ5, NonFiniteFieldsPropagate) {
  for (const Half& bad : non_finite_halves()) {
    const auto codes = covering_codes(32);
    expect_same_weights(dequantized(GgmlType::Q5_0, q5_bytes(GgmlType::Q5_0, bad, {}, codes)),
                        q5_expected(GgmlType::Q5_0, bad, {}, codes), "Q5_0 d=" + std::to_string(bad.value));
    for (const auto& [d, m] : {std::pair{bad, kHalfOne}, std::pair{kHalfOne, bad}, std::pair{bad, bad}}) {
      expect_same_weights(dequantized(GgmlType::Q5_1, q5_bytes(GgmlType::Q5_1, d, m, codes)),
                          q5_expected(GgmlType::Q5_1, d, m, codes), "Q5_1 with a non-finite field");
    }
  }
  const auto y = dequantized(GgmlType::Q5_0, q5_bytes(GgmlType::Q5_0, kHalfInf, {}, covering_codes(32)));
  EXPECT_TRUE(std::isinf(y[0]) && y[0] < 0);  // code 0: -16 * inf
  EXPECT_TRUE(std::isnan(y[16]));             // code 16 (7*16 % 32 = 16): 0 * inf
}

TEST(DequantizeQ5, FreshRandomRows) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const GgmlType type : {GgmlType::Q5_0, GgmlType::Q5_1}) {
    std::vector<std::uint8_t> row;
    std::vector<float> expected;
    for (int b = 0; b < 64; ++b) {
      const Half d = random_half(rng), m = random_half(rng);
      const Codes32 codes = random_codes(rng, 32);
      const auto bytes = q5_bytes(type, d, m, codes);
      const auto y = q5_expected(type, d, m, codes);
      row.insert(row.end(), bytes.begin(), bytes.end());
      expected.insert(expected.end(), y.begin(), y.end());
    }
    expect_same_weights(dequantized(type, row), expected, std::string(type_name(type)));
  }
}

TEST(DequantizeIQ4_NL, WorkedBlockWithEveryCode) {
  Codes32 codes{};
  for (int j = 0; j < 32; ++j) codes[j] = j < 16 ? j : 31 - j;
  const auto y = dequantized(GgmlType::IQ4_NL, iq4nl_bytes(kHalfHalf, codes));
  expect_same_weights(y, iq4nl_expected(kHalfHalf, codes), "IQ4_NL");
  EXPECT_EQ(y[0], -63.5f);   // code 0: -127 * 0.5
  EXPECT_EQ(y[8], 0.5f);     // code 8: 1, the smallest magnitude
  EXPECT_EQ(y[15], 56.5f);   // code 15: 113
  EXPECT_EQ(y[16], 56.5f);   // high nibble of qs[0]
}

// Each single bit of qs moves one weight to the grid value of its new code;
// the baseline is every code 8 (grid value 1, d = 1).
TEST(DequantizeIQ4_NL, EveryBitPosition) {
  Codes32 base{};
  base.fill(8);
  const auto baseline = iq4nl_bytes(kHalfOne, base);
  for (int byte = 2; byte < 18; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[byte] = static_cast<std::uint8_t>(block[byte] ^ (1u << bit));
      const int target = byte - 2 + (bit >= 4 ? 16 : 0);
      const int code = 8 ^ (1 << (bit % 4));
      const auto y = dequantized(GgmlType::IQ4_NL, block);
      for (int w = 0; w < 32; ++w) {
        ASSERT_EQ(y[w], w == target ? static_cast<float>(kIq4nlGrid[code]) : 1.0f) << "byte " << byte << " bit " << bit;
      }
    }
  }
}

TEST(DequantizeIQ4_NL, ExtremeAndNonFiniteScales) {
  for (const auto* halves : {&extreme_halves(), &non_finite_halves()}) {
    for (const Half& d : *halves) {
      const auto codes = covering_codes(16, d.bits % 16);
      expect_same_weights(dequantized(GgmlType::IQ4_NL, iq4nl_bytes(d, codes)), iq4nl_expected(d, codes),
                          "IQ4_NL d=" + std::to_string(d.value));
    }
  }
  // No grid value is zero: an infinite scale gives infinities, never NaN.
  for (const float v : dequantized(GgmlType::IQ4_NL, iq4nl_bytes(kHalfMinusInf, covering_codes(16)))) {
    EXPECT_TRUE(std::isinf(v));
  }
}

TEST(DequantizeIQ4_NL, FreshRandomRows) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> row;
  std::vector<float> expected;
  for (int b = 0; b < 64; ++b) {
    const Half d = random_half(rng);
    const Codes32 codes = random_codes(rng, 16);
    const auto bytes = iq4nl_bytes(d, codes);
    const auto y = iq4nl_expected(d, codes);
    row.insert(row.end(), bytes.begin(), bytes.end());
    expected.insert(expected.end(), y.begin(), y.end());
  }
  expect_same_weights(dequantized(GgmlType::IQ4_NL, row), expected, "IQ4_NL");
}

// The library's packing writes the bytes this test's layout does.
TEST(PackBlocksOf32, MatchesTheLayoutForFreshRandomBlocks) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto bytes_of = [](const auto& block) {
    std::vector<std::uint8_t> bytes(sizeof block);
    store_block(block, bytes.data());
    return bytes;
  };
  for (int round = 0; round < 64; ++round) {
    const Half d = random_half(rng), m = random_half(rng);
    const Codes32 codes = random_codes(rng, 32);
    std::uint8_t q[32];
    for (int j = 0; j < 32; ++j) q[j] = static_cast<std::uint8_t>(codes[j]);
    EXPECT_EQ(bytes_of(pack_q5_0(d.bits, q)), q5_bytes(GgmlType::Q5_0, d, {}, codes));
    EXPECT_EQ(bytes_of(pack_q5_1(d.bits, m.bits, q)), q5_bytes(GgmlType::Q5_1, d, m, codes));
    Codes32 nibbles = codes;
    for (int j = 0; j < 32; ++j) q[j] = static_cast<std::uint8_t>(nibbles[j] &= 15);
    EXPECT_EQ(bytes_of(pack_iq4_nl(d.bits, q)), iq4nl_bytes(d, nibbles));
  }
}

}  // namespace
}  // namespace vktune::ref
