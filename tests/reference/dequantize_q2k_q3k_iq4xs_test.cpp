// Q2_K, Q3_K and IQ4_XS (super-blocks of 256 weights): blocks written byte by
// byte here at the offsets of the published layouts, never through the
// library's packing code, and every weight compared bitwise with the format's
// formula evaluated here on the codes, sub-block scales and fp16 values the
// test chose. Single-bit tests pin each field to the weights it moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <cmath>
#include <vector>

#include "block_test_support.hpp"
#include "reference/block_pack.hpp"

namespace vktune::ref {
namespace {

using namespace block_test;

using Codes256 = std::array<int, 256>;

// IQ4_NL's grid, which IQ4_XS shares, as the published format lists it.
constexpr int kXsGrid[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// Weight 128h + 32p + l of Q2_K and Q3_K keeps its 2-bit field at bits 2p of
// qs[32h + l]: the byte and shift of weight w.
int two_bit_byte(int w) { return 32 * (w / 128) + w % 32; }
int two_bit_shift(int w) { return 2 * ((w % 128) / 32); }

// Q2_K: [scales:16 (scale | min << 4)][qs:64][d:2][dmin:2].
struct Q2K {
  Half d, dmin;
  std::array<int, 16> scales{}, mins{};  // 0..15
  Codes256 codes{};                      // 0..3

  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> b(84);
    for (int s = 0; s < 16; ++s) b[s] = static_cast<std::uint8_t>(scales[s] | (mins[s] << 4));
    for (int w = 0; w < 256; ++w) {
      b[16 + two_bit_byte(w)] = static_cast<std::uint8_t>(b[16 + two_bit_byte(w)] | (codes[w] << two_bit_shift(w)));
    }
    write_le16(b, 80, d.bits);
    write_le16(b, 82, dmin.bits);
    return b;
  }
  // dl = d * sc; ml = dmin * m; y = dl * q - ml, sub-block w / 16.
  std::vector<float> expected() const {
    std::vector<float> y(256);
    for (int w = 0; w < 256; ++w) {
      const float dl = d.value * static_cast<float>(scales[w / 16]);
      const float ml = dmin.value * static_cast<float>(mins[w / 16]);
      y[w] = dl * static_cast<float>(codes[w]) - ml;
    }
    return y;
  }
};

// Q3_K: [hmask:32][qs:64][scales:12][d:2]. The third bit of weight
// 128h + 32p + l is bit 4h + p of hmask[l]. Scale s (6 bits, stored + 32):
// low 4 bits in the low nibble of byte s (s < 8) or the high nibble of byte
// s - 8, top 2 bits at bits 2*(s/4) of byte 8 + s%4.
struct Q3K {
  Half d;
  std::array<int, 16> scales{};  // stored, 0..63
  Codes256 codes{};              // 0..7; the weight uses code - 4

  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> b(110);
    for (int w = 0; w < 256; ++w) {
      const int h = w / 128, p = (w % 128) / 32, l = w % 32;
      b[l] = static_cast<std::uint8_t>(b[l] | ((codes[w] >> 2) << (4 * h + p)));
      b[32 + two_bit_byte(w)] = static_cast<std::uint8_t>(b[32 + two_bit_byte(w)] | ((codes[w] & 3) << two_bit_shift(w)));
    }
    for (int s = 0; s < 16; ++s) {
      const int low = scales[s] & 15;
      b[96 + s % 8] = static_cast<std::uint8_t>(b[96 + s % 8] | (s < 8 ? low : low << 4));
      b[96 + 8 + s % 4] = static_cast<std::uint8_t>(b[96 + 8 + s % 4] | ((scales[s] >> 4) << (2 * (s / 4))));
    }
    write_le16(b, 108, d.bits);
    return b;
  }
  // dl = d * (sc - 32); y = dl * (q - 4), sub-block w / 16.
  std::vector<float> expected() const {
    std::vector<float> y(256);
    for (int w = 0; w < 256; ++w) {
      const float dl = d.value * static_cast<float>(scales[w / 16] - 32);
      y[w] = dl * static_cast<float>(codes[w] - 4);
    }
    return y;
  }
};

// IQ4_XS: [d:2][scales_h:2][scales_l:4][qs:128]. Sub-block ib's 6-bit scale
// (stored + 32): low 4 bits in nibble ib%2 of scales_l[ib/2], top 2 bits at
// bits 2ib of scales_h. Weight 32ib + j is the low nibble of qs[16ib + j]
// (j < 16), 32ib + 16 + j its high nibble.
struct IQ4XS {
  Half d;
  std::array<int, 8> scales{};  // stored, 0..63
  Codes256 codes{};             // 0..15

  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> b(136);
    write_le16(b, 0, d.bits);
    std::uint16_t high = 0;
    for (int ib = 0; ib < 8; ++ib) {
      b[4 + ib / 2] = static_cast<std::uint8_t>(b[4 + ib / 2] | ((scales[ib] & 15) << (4 * (ib % 2))));
      high = static_cast<std::uint16_t>(high | ((scales[ib] >> 4) << (2 * ib)));
      for (int j = 0; j < 16; ++j) {
        b[8 + 16 * ib + j] = static_cast<std::uint8_t>(codes[32 * ib + j] | (codes[32 * ib + 16 + j] << 4));
      }
    }
    write_le16(b, 2, high);
    return b;
  }
  // dl = d * (sc - 32); y = dl * grid[q], sub-block w / 32.
  std::vector<float> expected() const {
    std::vector<float> y(256);
    for (int w = 0; w < 256; ++w) {
      const float dl = d.value * static_cast<float>(scales[w / 32] - 32);
      y[w] = dl * static_cast<float>(kXsGrid[codes[w]]);
    }
    return y;
  }
};

// Every code 0..levels-1 in every sub-block of 16, in a scattered order.
Codes256 covering_codes256(int levels, int salt = 0) {
  Codes256 codes{};
  for (int w = 0; w < 256; ++w) codes[w] = (5 * w + salt + w / 16) % levels;
  return codes;
}

template <class Block>
void expect_block(const Block& block, GgmlType type, const std::string& what) {
  expect_same_weights(dequantized(type, block.bytes()), block.expected(), std::string(type_name(type)) + " " + what);
}

TEST(DequantizeQ2_K, WorkedBlock) {
  Q2K b{kHalfHalf, kHalfQuarter};
  for (int s = 0; s < 16; ++s) b.scales[s] = s, b.mins[s] = 15 - s;
  b.codes = covering_codes256(4);
  const auto y = dequantized(GgmlType::Q2_K, b.bytes());
  expect_same_weights(y, b.expected(), "Q2_K");
  // Weight 0: scale 0, min 15, code 0 -> -3.75. Weight 255: scale 15 (7.5), min 0, code (5*255 + 15) % 4 = 2.
  EXPECT_EQ(y[0], -3.75f);
  EXPECT_EQ(y[255], 15.0f);
}

// With d = dmin = 1, scales 0, mins 0 and codes 1, every weight is 0 (and
// weights are d*sc*q - dmin*m); one set bit of the scale bytes gives one
// sub-block a scale (+2^bit) or a min (-2^(bit-4)).
TEST(DequantizeQ2_K, EveryScaleAndMinBit) {
  Q2K base{kHalfOne, kHalfOne};
  base.codes.fill(1);
  const auto baseline = base.bytes();
  for (int s = 0; s < 16; ++s) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[s] = static_cast<std::uint8_t>(1u << bit);
      const float value = bit < 4 ? std::ldexp(1.0f, bit) : -std::ldexp(1.0f, bit - 4);
      const auto y = dequantized(GgmlType::Q2_K, block);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w / 16 == s ? value : 0.0f) << "scales[" << s << "] bit " << bit;
    }
  }
}

// With every scale 1 and codes 0, one bit of qs[i] is worth 1 or 2 to weight
// 128h + 32p + l (i = 32h + l, bits 2p and 2p+1).
TEST(DequantizeQ2_K, EveryCodeBit) {
  Q2K base{kHalfOne, kHalfOne};
  base.scales.fill(1);
  const auto baseline = base.bytes();
  for (int i = 0; i < 64; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[16 + i] = static_cast<std::uint8_t>(1u << bit);
      const int target = 128 * (i / 32) + 32 * (bit / 2) + i % 32;
      const auto y = dequantized(GgmlType::Q2_K, block);
      for (int w = 0; w < 256; ++w) {
        ASSERT_EQ(y[w], w == target ? std::ldexp(1.0f, bit % 2) : 0.0f) << "qs[" << i << "] bit " << bit;
      }
    }
  }
}

// Every scale and min value 0..15 at every sub-block position, every code in
// every sub-block, at fp16 extremes of d and dmin (one at a time and both).
TEST(DequantizeQ2_K, EveryScaleValueAtExtremeFields) {
  for (const Half& extreme : extreme_halves()) {
    for (const auto& [d, dmin] : {std::pair{extreme, kHalfThird}, std::pair{kHalfThird, extreme}, std::pair{extreme, extreme}}) {
      for (int v = 0; v < 16; ++v) {
        Q2K b{d, dmin};
        for (int s = 0; s < 16; ++s) b.scales[s] = (v + s) % 16, b.mins[s] = (v + 5 * s) % 16;
        b.codes = covering_codes256(4, v);
        expect_block(b, GgmlType::Q2_K, "d=" + std::to_string(d.value) + " dmin=" + std::to_string(dmin.value));
      }
    }
  }
}

// dl*q and ml are exact (11 + 4 + 2 bits), so the one rounding is the
// subtraction: each weight is the correctly rounded dl*q - ml.
TEST(DequantizeQ2_K, OnlyTheSubtractionRounds) {
  Q2K b{kHalfMax, kHalfThird};
  b.scales.fill(15);
  b.mins.fill(13);
  b.codes = covering_codes256(4);
  const auto y = dequantized(GgmlType::Q2_K, b.bytes());
  int inexact = 0;
  for (int w = 0; w < 256; ++w) {
    const double exact = 65504.0 * 15 * b.codes[w] - 0.333251953125 * 13;  // exact in double
    ASSERT_EQ(y[w], static_cast<float>(exact)) << w;
    if (static_cast<double>(static_cast<float>(exact)) != exact) ++inexact;
  }
  EXPECT_GT(inexact, 0) << "the block no longer exercises rounding of the subtraction";
}

TEST(DequantizeQ3_K, WorkedBlock) {
  Q3K b{kHalfHalf};
  for (int s = 0; s < 16; ++s) b.scales[s] = 4 * s + 1;  // -31, -27, ..., 29
  b.codes = covering_codes256(8);
  const auto y = dequantized(GgmlType::Q3_K, b.bytes());
  expect_same_weights(y, b.expected(), "Q3_K");
  // Weight 0: scale 1 - 32 = -31 (-15.5), code 0 (-4) -> 62. Weight 255: scale 61 - 32 = 29, code (5*255 + 15) % 8 = 2.
  EXPECT_EQ(y[0], 62.0f);
  EXPECT_EQ(y[255], -29.0f);
}

// Scales stored 0 (-32) and codes 5 (+1) make every weight -32; one set bit
// of the 12 scale bytes raises one sub-block's stored scale by its worth.
TEST(DequantizeQ3_K, EveryScaleBit) {
  Q3K base{kHalfOne};
  base.codes.fill(5);
  const auto baseline = base.bytes();
  for (int byte = 0; byte < 12; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[96 + byte] = static_cast<std::uint8_t>(1u << bit);
      int sub_block = 0, worth = 0;
      if (byte < 8) {  // low nibble: sub-block byte, high nibble: byte + 8
        sub_block = byte + (bit >= 4 ? 8 : 0);
        worth = 1 << (bit % 4);
      } else {  // bits 2k, 2k+1 of byte 8 + c: top bits of sub-block c + 4k
        sub_block = byte - 8 + 4 * (bit / 2);
        worth = 16 << (bit % 2);
      }
      const auto y = dequantized(GgmlType::Q3_K, block);
      for (int w = 0; w < 256; ++w) {
        ASSERT_EQ(y[w], w / 16 == sub_block ? static_cast<float>(worth - 32) : -32.0f) << "scale byte " << byte << " bit " << bit;
      }
    }
  }
}

// Scales 1 (stored 33) and codes 4 (third bit set, low bits 0) make every
// weight 0; one bit of qs adds 1 or 2 to one weight, one bit of hmask clears
// a third bit (-4).
TEST(DequantizeQ3_K, EveryCodeBit) {
  Q3K base{kHalfOne};
  base.scales.fill(33);
  base.codes.fill(4);
  const auto baseline = base.bytes();
  for (int byte = 0; byte < 96; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[byte] = static_cast<std::uint8_t>(block[byte] ^ (1u << bit));
      int target = 0;
      float value = 0;
      if (byte < 32) {  // hmask[l] bit 4h + p: weight 128h + 32p + l
        target = 128 * (bit / 4) + 32 * (bit % 4) + byte;
        value = -4.0f;
      } else {  // qs[32h + l] bits 2p, 2p+1
        const int i = byte - 32;
        target = 128 * (i / 32) + 32 * (bit / 2) + i % 32;
        value = std::ldexp(1.0f, bit % 2);
      }
      const auto y = dequantized(GgmlType::Q3_K, block);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w == target ? value : 0.0f) << "byte " << byte << " bit " << bit;
    }
  }
}

// Every stored scale 0..63 at every sub-block position, every code in every
// sub-block, at each fp16 extreme of d.
TEST(DequantizeQ3_K, EveryScaleValueAtExtremeScales) {
  for (const Half& d : extreme_halves()) {
    for (int v = 0; v < 64; ++v) {
      Q3K b{d};
      for (int s = 0; s < 16; ++s) b.scales[s] = (v + 4 * s) % 64;
      b.codes = covering_codes256(8, v);
      expect_block(b, GgmlType::Q3_K, "d=" + std::to_string(d.value) + " v=" + std::to_string(v));
    }
  }
}

TEST(DequantizeIQ4_XS, WorkedBlock) {
  IQ4XS b{kHalfQuarter};
  for (int ib = 0; ib < 8; ++ib) b.scales[ib] = 8 * ib + 3;  // -29, -21, ..., 27
  b.codes = covering_codes256(16);
  const auto y = dequantized(GgmlType::IQ4_XS, b.bytes());
  expect_same_weights(y, b.expected(), "IQ4_XS");
  // Weight 0: scale 3 - 32 = -29 (-7.25), code 0 (-127) -> 920.75.
  EXPECT_EQ(y[0], 920.75f);
  // Weight 255: scale 59 - 32 = 27 (6.75), code (5*255 + 15) % 16 = 10 (25).
  EXPECT_EQ(y[255], 168.75f);
}

// Stored scales 0 (-32) and codes 8 (grid value 1): every weight -32; one set
// bit of scales_l or scales_h raises one sub-block's stored scale.
TEST(DequantizeIQ4_XS, EveryScaleBit) {
  IQ4XS base{kHalfOne};
  base.codes.fill(8);
  const auto baseline = base.bytes();
  for (int byte = 2; byte < 8; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[byte] = static_cast<std::uint8_t>(1u << bit);
      int sub_block = 0, worth = 0;
      if (byte < 4) {  // scales_h, little-endian: bit n is bit (n % 2) + 4 of sub-block n / 2
        const int n = 8 * (byte - 2) + bit;
        sub_block = n / 2;
        worth = 16 << (n % 2);
      } else {  // scales_l[i]: low nibble sub-block 2i, high nibble 2i + 1
        sub_block = 2 * (byte - 4) + bit / 4;
        worth = 1 << (bit % 4);
      }
      const auto y = dequantized(GgmlType::IQ4_XS, block);
      for (int w = 0; w < 256; ++w) {
        ASSERT_EQ(y[w], w / 32 == sub_block ? static_cast<float>(worth - 32) : -32.0f) << "byte " << byte << " bit " << bit;
      }
    }
  }
}

// Stored scales 33 (+1) and codes 8 (1): one bit of qs moves one weight to
// the grid value of its new code.
TEST(DequantizeIQ4_XS, EveryCodeBit) {
  IQ4XS base{kHalfOne};
  base.scales.fill(33);
  base.codes.fill(8);
  const auto baseline = base.bytes();
  for (int i = 0; i < 128; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = baseline;
      block[8 + i] = static_cast<std::uint8_t>(block[8 + i] ^ (1u << bit));
      const int target = 32 * (i / 16) + i % 16 + (bit >= 4 ? 16 : 0);
      const float value = static_cast<float>(kXsGrid[8 ^ (1 << (bit % 4))]);
      const auto y = dequantized(GgmlType::IQ4_XS, block);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w == target ? value : 1.0f) << "qs[" << i << "] bit " << bit;
    }
  }
}

TEST(DequantizeIQ4_XS, EveryScaleValueAtExtremeScales) {
  for (const Half& d : extreme_halves()) {
    for (int v = 0; v < 64; ++v) {
      IQ4XS b{d};
      for (int ib = 0; ib < 8; ++ib) b.scales[ib] = (v + 8 * ib) % 64;
      b.codes = covering_codes256(16, v);
      expect_block(b, GgmlType::IQ4_XS, "d=" + std::to_string(d.value) + " v=" + std::to_string(v));
    }
  }
}

// Infinite and NaN fields go through the formulas' arithmetic (inf * 0 is
// NaN: a zero scale or code under an infinite d), as in ggml.
TEST(DequantizeSuperBlocks, NonFiniteFieldsPropagate) {
  for (const Half& bad : non_finite_halves()) {
    for (const auto& [d, dmin] : {std::pair{bad, kHalfOne}, std::pair{kHalfOne, bad}}) {
      Q2K q2{d, dmin};
      for (int s = 0; s < 16; ++s) q2.scales[s] = s, q2.mins[s] = 15 - s;
      q2.codes = covering_codes256(4);
      expect_block(q2, GgmlType::Q2_K, "non-finite field");
    }
    Q3K q3{bad};
    for (int s = 0; s < 16; ++s) q3.scales[s] = 30 + s;  // 32 (a zero scale) among them
    q3.codes = covering_codes256(8);
    expect_block(q3, GgmlType::Q3_K, "non-finite d");
    IQ4XS xs{bad};
    for (int ib = 0; ib < 8; ++ib) xs.scales[ib] = 29 + ib;
    xs.codes = covering_codes256(16);
    expect_block(xs, GgmlType::IQ4_XS, "non-finite d");
  }
  Q3K q3{kHalfInf};
  q3.scales.fill(32);  // scale 0 under an infinite d
  q3.codes = covering_codes256(8);
  for (const float v : dequantized(GgmlType::Q3_K, q3.bytes())) EXPECT_TRUE(std::isnan(v));
}

// Rows of blocks with random fields, fp16 subnormals and zeros included.
TEST(DequantizeSuperBlocks, FreshRandomRows) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto row_of = [&](GgmlType type, auto make) {
    std::vector<std::uint8_t> row;
    std::vector<float> expected;
    for (int b = 0; b < 16; ++b) {
      const auto block = make();
      const auto bytes = block.bytes();
      const auto y = block.expected();
      row.insert(row.end(), bytes.begin(), bytes.end());
      expected.insert(expected.end(), y.begin(), y.end());
    }
    expect_same_weights(dequantized(type, row), expected, std::string(type_name(type)));
  };
  row_of(GgmlType::Q2_K, [&] {
    Q2K b{random_half(rng), random_half(rng)};
    for (int s = 0; s < 16; ++s) b.scales[s] = uniform(0, 15), b.mins[s] = uniform(0, 15);
    for (auto& c : b.codes) c = uniform(0, 3);
    return b;
  });
  row_of(GgmlType::Q3_K, [&] {
    Q3K b{random_half(rng)};
    for (auto& s : b.scales) s = uniform(0, 63);
    for (auto& c : b.codes) c = uniform(0, 7);
    return b;
  });
  row_of(GgmlType::IQ4_XS, [&] {
    IQ4XS b{random_half(rng)};
    for (auto& s : b.scales) s = uniform(0, 63);
    for (auto& c : b.codes) c = uniform(0, 15);
    return b;
  });
}

// The library's packing writes the bytes this test's layout does, and its
// scale accessors read back every value written (the round trip the
// quantizer and the random rows rely on).
TEST(PackSuperBlocks, MatchesTheLayoutForFreshRandomBlocks) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto bytes_of = [](const auto& block) {
    std::vector<std::uint8_t> bytes(sizeof block);
    store_block(block, bytes.data());
    return bytes;
  };
  for (int round = 0; round < 32; ++round) {
    std::uint8_t q[qk_k], scales16[16], mins16[16], scales8[8];
    Q2K q2{random_half(rng), random_half(rng)};
    Q3K q3{random_half(rng)};
    IQ4XS xs{random_half(rng)};
    for (int s = 0; s < 16; ++s) {
      q2.scales[s] = scales16[s] = static_cast<std::uint8_t>(uniform(0, 15));
      q2.mins[s] = mins16[s] = static_cast<std::uint8_t>(uniform(0, 15));
    }
    for (int w = 0; w < 256; ++w) q2.codes[w] = q[w] = static_cast<std::uint8_t>(uniform(0, 3));
    EXPECT_EQ(bytes_of(pack_q2_k(q2.d.bits, q2.dmin.bits, scales16, mins16, q)), q2.bytes());
    for (int s = 0; s < 16; ++s) q3.scales[s] = scales16[s] = static_cast<std::uint8_t>(uniform(0, 63));
    for (int w = 0; w < 256; ++w) q3.codes[w] = q[w] = static_cast<std::uint8_t>(uniform(0, 7));
    const auto q3_block = pack_q3_k(q3.d.bits, scales16, q);
    EXPECT_EQ(bytes_of(q3_block), q3.bytes());
    for (int s = 0; s < 16; ++s) EXPECT_EQ(q3_k_scale(s, q3_block.scales), q3.scales[s]) << s;
    for (int ib = 0; ib < 8; ++ib) xs.scales[ib] = scales8[ib] = static_cast<std::uint8_t>(uniform(0, 63));
    for (int w = 0; w < 256; ++w) xs.codes[w] = q[w] = static_cast<std::uint8_t>(uniform(0, 15));
    const auto xs_block = pack_iq4_xs(xs.d.bits, scales8, q);
    EXPECT_EQ(bytes_of(xs_block), xs.bytes());
    for (int ib = 0; ib < 8; ++ib) EXPECT_EQ(iq4_xs_scale(ib, xs_block), xs.scales[ib]) << ib;
  }
}

// set_q3_k_scale changes only its own sub-block's bits, for every value.
TEST(PackSuperBlocks, Q3KScaleWritesLeaveOtherSubBlocks) {
  for (int s = 0; s < 16; ++s) {
    for (int v = 0; v < 64; ++v) {
      std::uint8_t packed[12];
      std::fill(std::begin(packed), std::end(packed), std::uint8_t{0xa5});  // stale bits every write must replace
      for (int t = 0; t < 16; ++t) set_q3_k_scale(t, packed, (7 * t + 5) % 64);
      set_q3_k_scale(s, packed, v);
      for (int t = 0; t < 16; ++t) ASSERT_EQ(q3_k_scale(t, packed), t == s ? v : (7 * t + 5) % 64) << s << " " << v;
    }
  }
}

}  // namespace
}  // namespace vktune::ref
