// Hand-built blocks with values worked out by hand. Bytes are written
// directly at the offsets of the GGUF specification (not through the library's
// packing code), so a layout mistake in either is caught.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "reference/dequantize.hpp"

namespace vktune::ref {
namespace {

void put_u16(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint16_t value) {
  bytes[at] = static_cast<std::uint8_t>(value & 0xff);
  bytes[at + 1] = static_cast<std::uint8_t>(value >> 8);
}

std::vector<float> dequant(GgmlType type, const std::vector<std::uint8_t>& bytes, std::size_t k) {
  std::vector<float> out(k, -12345.0f);
  dequantize_row(type, bytes.data(), out.data(), k);
  return out;
}

constexpr std::uint16_t kOne = 0x3c00;        // 1.0
constexpr std::uint16_t kHalf = 0x3800;       // 0.5
constexpr std::uint16_t kQuarter = 0x3400;    // 0.25
constexpr std::uint16_t kMinusOne = 0xbc00;   // -1.0
constexpr std::uint16_t kMax = 0x7bff;        // 65504
constexpr std::uint16_t kTiny = 0x0001;       // 2^-24, the smallest subnormal

TEST(DequantizeF32F16, CopiesAndConverts) {
  const float values[3] = {1.5f, -0.0f, 3e38f};
  std::vector<std::uint8_t> bytes(sizeof values);
  std::memcpy(bytes.data(), values, sizeof values);
  const auto f32 = dequant(GgmlType::F32, bytes, 3);
  EXPECT_EQ(f32[0], 1.5f);
  EXPECT_TRUE(std::signbit(f32[1]));
  EXPECT_EQ(f32[2], 3e38f);

  std::vector<std::uint8_t> halves(6);
  put_u16(halves, 0, 0x3e00);  // 1.5
  put_u16(halves, 2, 0x8001);  // -2^-24
  put_u16(halves, 4, 0x7c00);  // inf
  const auto f16 = dequant(GgmlType::F16, halves, 3);
  EXPECT_EQ(f16[0], 1.5f);
  EXPECT_EQ(f16[1], -0x1p-24f);
  EXPECT_TRUE(std::isinf(f16[2]));
}

// Q4_0: [d:2][qs:16]; weight j < 16 is the low nibble of qs[j], weight 16 + j its high nibble.
TEST(DequantizeQ4_0, NibbleOrderAndOffset) {
  std::vector<std::uint8_t> block(18);
  put_u16(block, 0, kHalf);
  for (int j = 0; j < 16; ++j) block[2 + j] = static_cast<std::uint8_t>(j | ((15 - j) << 4));
  const auto y = dequant(GgmlType::Q4_0, block, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 8)) << j;
    EXPECT_EQ(y[16 + j], 0.5f * static_cast<float>(7 - j)) << j;
  }
  EXPECT_EQ(y[0], -4.0f);
  EXPECT_EQ(y[15], 3.5f);
  EXPECT_EQ(y[16], 3.5f);
}

TEST(DequantizeQ4_0, ExtremeScales) {
  std::vector<std::uint8_t> block(18);
  for (int j = 0; j < 16; ++j) block[2 + j] = static_cast<std::uint8_t>(0x0f | (0 << 4));  // codes 15 and 0
  put_u16(block, 0, kMax);
  auto y = dequant(GgmlType::Q4_0, block, 32);
  EXPECT_EQ(y[0], 7.0f * 65504.0f);
  EXPECT_EQ(y[16], -8.0f * 65504.0f);
  put_u16(block, 0, kTiny);
  y = dequant(GgmlType::Q4_0, block, 32);
  EXPECT_EQ(y[0], 7.0f * 0x1p-24f);
  EXPECT_EQ(y[16], -8.0f * 0x1p-24f);
  put_u16(block, 0, kMinusOne);
  y = dequant(GgmlType::Q4_0, block, 32);
  EXPECT_EQ(y[0], -7.0f);
  EXPECT_EQ(y[16], 8.0f);
}

TEST(DequantizeQ4_0, UnalignedRowOfTwoBlocks) {
  std::vector<std::uint8_t> storage(1 + 36);
  std::vector<std::uint8_t> row(36);
  put_u16(row, 0, kOne);
  put_u16(row, 18, kQuarter);
  for (int j = 0; j < 16; ++j) {
    row[2 + j] = 0x98;   // codes 8 (low) and 9 (high)
    row[20 + j] = 0x1f;  // codes 15 (low) and 1 (high)
  }
  std::memcpy(storage.data() + 1, row.data(), row.size());
  std::vector<float> y(64);
  dequantize_row(GgmlType::Q4_0, storage.data() + 1, y.data(), 64);  // odd address
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[16], 1.0f);
  EXPECT_EQ(y[32], 7.0f * 0.25f);
  EXPECT_EQ(y[48], -7.0f * 0.25f);
}

// Q8_0: [d:2][qs:32 int8].
TEST(DequantizeQ8_0, SignedCodes) {
  std::vector<std::uint8_t> block(34);
  put_u16(block, 0, kHalf);
  for (int j = 0; j < 32; ++j) block[2 + j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(j * 8 - 128));
  auto y = dequant(GgmlType::Q8_0, block, 32);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.5f * static_cast<float>(j * 8 - 128)) << j;
  EXPECT_EQ(y[0], -64.0f);
  block[2 + 31] = 127;
  put_u16(block, 0, kMax);
  y = dequant(GgmlType::Q8_0, block, 32);
  EXPECT_EQ(y[0], -128.0f * 65504.0f);
  EXPECT_EQ(y[31], 127.0f * 65504.0f);
}

// Q4_K / Q5_K scales: 12 bytes at offset 4. With d = dmin = 1 and every code
// 1, sub-block s dequantizes to scale_s - min_s. Setting one bit of the scale
// bytes at a time must move exactly one sub-block's scale or min by the
// bit's weight, at the position the format defines:
//   bytes 0-3:  bits 0-5 = scale of sub-block b,     bits 6-7 = scale bits 4-5 of sub-block b+4
//   bytes 4-7:  bits 0-5 = min of sub-block b-4,     bits 6-7 = min bits 4-5 of sub-block b
//   bytes 8-11: bits 0-3 = scale bits 0-3 of b-4,    bits 4-7 = min bits 0-3 of b-4
struct ScaleBit {
  int sub_block;
  bool is_min;
  float weight;
};

ScaleBit expected_scale_bit(int byte, int bit) {
  if (byte < 4) {
    if (bit < 6) return {byte, false, std::ldexp(1.0f, bit)};
    return {byte + 4, false, std::ldexp(1.0f, bit - 6 + 4)};
  }
  if (byte < 8) {
    if (bit < 6) return {byte - 4, true, std::ldexp(1.0f, bit)};
    return {byte, true, std::ldexp(1.0f, bit - 6 + 4)};
  }
  if (bit < 4) return {byte - 4, false, std::ldexp(1.0f, bit)};
  return {byte - 4, true, std::ldexp(1.0f, bit - 4)};
}

void check_every_scale_bit(GgmlType type) {
  const std::size_t bytes = block_bytes(type);
  const std::size_t qs_offset = type == GgmlType::Q4_K ? 16 : 48;
  for (int byte = 0; byte < 12; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<std::uint8_t> block(bytes);
      put_u16(block, 0, kOne);
      put_u16(block, 2, kOne);
      for (std::size_t i = 0; i < 128; ++i) block[qs_offset + i] = 0x11;  // every code 1
      block[4 + byte] = static_cast<std::uint8_t>(1u << bit);
      const ScaleBit e = expected_scale_bit(byte, bit);
      const auto y = dequant(type, block, 256);
      for (int w = 0; w < 256; ++w) {
        const float expected = (w / 32 == e.sub_block) ? (e.is_min ? -e.weight : e.weight) : 0.0f;
        ASSERT_EQ(y[w], expected) << type_name(type) << " scale byte " << byte << " bit " << bit << " weight " << w;
      }
    }
  }
}

TEST(DequantizeQ4_K, EveryScaleAndMinPackingPosition) { check_every_scale_bit(GgmlType::Q4_K); }
TEST(DequantizeQ5_K, EveryScaleAndMinPackingPosition) { check_every_scale_bit(GgmlType::Q5_K); }

// Q4_K: [d:2][dmin:2][scales:12][qs:128]; qs[32c + l] holds weight 64c + l
// (low nibble) and 64c + 32 + l (high nibble).
TEST(DequantizeQ4_K, WorkedBlock) {
  std::vector<std::uint8_t> block(144);
  put_u16(block, 0, kHalf);      // d = 0.5
  put_u16(block, 2, kQuarter);   // dmin = 0.25
  // Sub-block s: scale s + 1, min 2s (all below 16, so the high bits are 0).
  for (int s = 0; s < 4; ++s) {
    block[4 + s] = static_cast<std::uint8_t>(s + 1);
    block[8 + s] = static_cast<std::uint8_t>(2 * s);
    block[12 + s] = static_cast<std::uint8_t>((s + 5) | ((2 * (s + 4)) << 4));
  }
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) block[16 + 32 * c + l] = static_cast<std::uint8_t>((l % 16) | ((15 - l % 16) << 4));
  }
  const auto y = dequant(GgmlType::Q4_K, block, 256);
  for (int w = 0; w < 256; ++w) {
    const int s = w / 32;
    const int l = w % 32;
    const int q = (s % 2 == 0) ? l % 16 : 15 - l % 16;
    const float expected = 0.5f * static_cast<float>(s + 1) * static_cast<float>(q) - 0.25f * static_cast<float>(2 * s);
    ASSERT_EQ(y[w], expected) << w;
  }
  EXPECT_EQ(y[0], 0.0f);                 // s=0: 0.5*1*0 - 0
  EXPECT_EQ(y[33], 1.0f * 14 - 0.5f);    // s=1: scale 2 -> 1.0, q 14, min 2 -> 0.5
  EXPECT_EQ(y[255], 4.0f * 0 - 3.5f);    // s=7: scale 8 -> 4.0, q 0, min 14 -> 3.5
}

// Q4_K computes d1 = d*sc and m1 = dmin*m as floats, then d1*q - m1. With
// an fp16 d (11 significant bits), a 6-bit scale and a 4-bit code, both
// products are exact in float, so the one rounding is the subtraction: the
// result must be the correctly rounded d1*q - m1 (a fused multiply-add gives
// the same; a wrong order of operations would not).
TEST(DequantizeQ4_K, OnlyTheSubtractionRounds) {
  std::vector<std::uint8_t> block(144);
  put_u16(block, 0, kMax);     // d = 65504
  put_u16(block, 2, 0x3555);   // dmin = 0.333251953125
  for (int s = 0; s < 4; ++s) {
    block[4 + s] = 63;
    block[8 + s] = 37;
  }
  for (int i = 0; i < 128; ++i) block[16 + i] = static_cast<std::uint8_t>(i);
  const auto y = dequant(GgmlType::Q4_K, block, 256);
  const double d1 = 65504.0 * 63;
  const double m1 = 0.333251953125 * 37;
  EXPECT_EQ(static_cast<double>(65504.0f * 63.0f), d1);  // exact products
  EXPECT_EQ(static_cast<double>(0.333251953125f * 37.0f), m1);
  int inexact = 0;
  for (int w = 0; w < 32; ++w) {
    const double exact = d1 * (w & 0xf) - m1;  // exact in double
    EXPECT_EQ(y[w], static_cast<float>(exact)) << w;
    if (static_cast<double>(static_cast<float>(exact)) != exact) ++inexact;
  }
  EXPECT_GT(inexact, 0) << "the block no longer exercises rounding of the subtraction";
}

// Q5_K: [d:2][dmin:2][scales:12][qh:32][qs:128]; bit 2c of qh[l] is the fifth
// bit of weight 64c + l, bit 2c+1 that of weight 64c + 32 + l.
TEST(DequantizeQ5_K, EveryHighBitPosition) {
  for (int l = 0; l < 32; ++l) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<std::uint8_t> block(176);
      put_u16(block, 0, kOne);
      for (int s = 0; s < 8; ++s) block[4 + (s < 4 ? s : s + 4)] = 1;  // scale 1, min 0 everywhere
      block[16 + l] = static_cast<std::uint8_t>(1u << bit);
      const int target = 64 * (bit / 2) + 32 * (bit % 2) + l;
      const auto y = dequant(GgmlType::Q5_K, block, 256);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w == target ? 16.0f : 0.0f) << "qh[" << l << "] bit " << bit;
    }
  }
}

TEST(DequantizeQ5_K, WorkedBlockWithExtremeScales) {
  std::vector<std::uint8_t> block(176);
  put_u16(block, 0, kMax);
  put_u16(block, 2, kTiny);
  // Sub-block 7: scale 63, min 63 (low nibbles in byte 11, top bits in bytes 3 and 7).
  block[4 + 11] = 0xff;
  block[4 + 3] = 0xc0;
  block[4 + 7] = 0xc0;
  for (int l = 0; l < 32; ++l) {
    block[16 + l] = 0x80;            // fifth bit of weights 224 + l
    block[48 + 96 + l] = 0xf0;       // high nibble 15 for weights 224 + l
  }
  const auto y = dequant(GgmlType::Q5_K, block, 256);
  const float d1 = 65504.0f * 63.0f;
  const float m1 = 0x1p-24f * 63.0f;
  for (int w = 0; w < 224; ++w) ASSERT_EQ(y[w], 0.0f) << w;
  for (int w = 224; w < 256; ++w) ASSERT_EQ(y[w], d1 * 31.0f - m1) << w;
  EXPECT_TRUE(std::isfinite(y[255]));
}

// Q6_K: [ql:128][qh:64][scales:16 int8][d:2]; weight = d*scale*(q - 32).
// Baseline: qh = 0xAA (bit 5 of every code set) and ql = 0 makes every code
// 32, so every weight 0; then each single bit must move exactly one weight.
std::vector<std::uint8_t> q6_zero_block() {
  std::vector<std::uint8_t> block(210);
  for (int i = 0; i < 64; ++i) block[128 + i] = 0xaa;
  for (int i = 0; i < 16; ++i) block[192 + i] = 1;
  put_u16(block, 208, kOne);
  return block;
}

TEST(DequantizeQ6_K, EveryLowBitPosition) {
  for (int byte = 0; byte < 128; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = q6_zero_block();
      block[byte] = static_cast<std::uint8_t>(1u << bit);
      const int half = byte / 64;
      const int l = byte % 64;
      // ql[64h + l], l < 32: low nibble -> weight 128h + l, high -> 128h + 64 + l;
      // ql[64h + 32 + l]: low nibble -> 128h + 32 + l, high -> 128h + 96 + l.
      const int target = 128 * half + (l % 32) + (l >= 32 ? 32 : 0) + (bit >= 4 ? 64 : 0);
      const float value = std::ldexp(1.0f, bit % 4);
      const auto y = dequant(GgmlType::Q6_K, block, 256);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w == target ? value : 0.0f) << "ql[" << byte << "] bit " << bit;
    }
  }
}

TEST(DequantizeQ6_K, EveryHighBitPosition) {
  for (int byte = 0; byte < 64; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto block = q6_zero_block();
      block[128 + byte] = static_cast<std::uint8_t>(block[128 + byte] ^ (1u << bit));
      const int half = byte / 32;
      const int l = byte % 32;
      const int target = 128 * half + 32 * (bit / 2) + l;
      const float value = bit % 2 == 0 ? 16.0f : -32.0f;  // set bit 4, or clear bit 5
      const auto y = dequant(GgmlType::Q6_K, block, 256);
      for (int w = 0; w < 256; ++w) ASSERT_EQ(y[w], w == target ? value : 0.0f) << "qh[" << byte << "] bit " << bit;
    }
  }
}

TEST(DequantizeQ6_K, EveryScalePosition) {
  auto block = q6_zero_block();
  for (int i = 0; i < 128; ++i) block[i] = 0x11;  // every code 33: weight = d*scale
  const std::int8_t scales[16] = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 127, -128};
  std::memcpy(block.data() + 192, scales, 16);
  put_u16(block, 208, kHalf);
  const auto y = dequant(GgmlType::Q6_K, block, 256);
  for (int w = 0; w < 256; ++w) {
    // Weight 128h + 32p + l uses scale 8h + 2p + l/16.
    const int index = 8 * (w / 128) + 2 * ((w % 128) / 32) + (w % 32) / 16;
    ASSERT_EQ(y[w], 0.5f * static_cast<float>(scales[index])) << w;
  }
  EXPECT_EQ(y[16], -1.0f);     // scale index 1
  EXPECT_EQ(y[32], 1.5f);      // scale index 2
  EXPECT_EQ(y[240], -64.0f);   // h=1, p=3, l=16: index 15
}

TEST(DequantizeQ6_K, ExtremeScales) {
  std::vector<std::uint8_t> block(210);  // every code 0: q - 32 = -32
  block[192] = 0x80;                     // scale -128 for weights 0-15
  put_u16(block, 208, kMax);
  auto y = dequant(GgmlType::Q6_K, block, 256);
  EXPECT_EQ(y[0], 65504.0f * -128.0f * -32.0f);
  EXPECT_EQ(y[16], 0.0f);
  put_u16(block, 208, kTiny);
  y = dequant(GgmlType::Q6_K, block, 256);
  EXPECT_EQ(y[0], 0x1p-24f * -128.0f * -32.0f);
}

TEST(Dequantize, RejectsPartialBlocks) {
  std::vector<std::uint8_t> bytes(256);
  std::vector<float> out(256);
  EXPECT_THROW(dequantize_row(GgmlType::Q4_0, bytes.data(), out.data(), 31), Error);
  EXPECT_THROW(dequantize_row(GgmlType::Q6_K, bytes.data(), out.data(), 128), Error);
}

TEST(Dequantize, RowsAreContiguous) {
  std::vector<std::uint8_t> rows(68);
  put_u16(rows, 0, kOne);
  put_u16(rows, 34, kHalf);
  for (int j = 0; j < 32; ++j) {
    rows[2 + j] = 2;
    rows[36 + j] = 4;
  }
  const auto y = dequantize_rows(GgmlType::Q8_0, rows.data(), 2, 32);
  ASSERT_EQ(y.size(), 64u);
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[63], 2.0f);
  EXPECT_EQ(y[31], 2.0f);
}

}  // namespace
}  // namespace vktune::ref
