#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/fp16.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::ref {
namespace {

std::uint16_t u16_at(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  return static_cast<std::uint16_t>(bytes[at] | (bytes[at + 1] << 8));
}

TEST(RandomRows, SizeAndDeterminism) {
  for (const GgmlType type : all_ggml_types()) {
    const auto a = random_quantized_rows(type, 3, 512, 99);
    const auto b = random_quantized_rows(type, 3, 512, 99);
    const auto c = random_quantized_rows(type, 3, 512, 100);
    EXPECT_EQ(a.size(), 3 * row_bytes(type, 512)) << type_name(type);
    EXPECT_EQ(a, b) << type_name(type);
    EXPECT_NE(a, c) << type_name(type);
  }
  EXPECT_THROW((void)random_quantized_rows(GgmlType::Q4_K, 1, 100, 1), Error);
}

// Rows come in runs of 256 from streams of their own, made on every core:
// the first run is what a tensor of 256 rows holds, the next run is not a
// copy of it, and the bytes are the same from one call to the next.
TEST(RandomRows, RunsOfRowsHaveStreamsOfTheirOwn) {
  const std::size_t stride = row_bytes(GgmlType::Q4_0, 64);
  const auto big = random_quantized_rows(GgmlType::Q4_0, 600, 64, 7);
  EXPECT_EQ(big, random_quantized_rows(GgmlType::Q4_0, 600, 64, 7));
  const auto first = random_quantized_rows(GgmlType::Q4_0, 256, 64, 7);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), big.begin()));
  EXPECT_FALSE(std::equal(big.begin() + 256 * stride, big.begin() + 512 * stride, big.begin()));
  EXPECT_FALSE(std::equal(big.begin() + 512 * stride, big.end(), big.begin() + 256 * stride));
}

TEST(RandomRows, FiniteScalesAndBoundedWeights) {
  for (const GgmlType type : all_ggml_types()) {
    const auto rows = random_quantized_rows(type, 8, 1024, 5);
    const auto y = dequantize_rows(type, rows.data(), 8, 1024);
    for (const float v : y) {
      ASSERT_TRUE(std::isfinite(v)) << type_name(type);
      ASSERT_LE(std::fabs(v), 1.05f) << type_name(type);
    }
  }
}

// Every code value of the type appears in every block.
TEST(RandomRows, EveryCodeValueInEveryBlock) {
  const std::size_t blocks = 16;
  {
    const auto rows = random_quantized_rows(GgmlType::Q4_0, 1, 32 * blocks, 11);
    for (std::size_t b = 0; b < blocks; ++b) {
      std::set<int> codes;
      for (int j = 0; j < 16; ++j) {
        codes.insert(rows[18 * b + 2 + j] & 0xf);
        codes.insert(rows[18 * b + 2 + j] >> 4);
      }
      EXPECT_EQ(codes.size(), 16u) << "Q4_0 block " << b;
      EXPECT_TRUE(std::isfinite(fp16_to_fp32(u16_at(rows, 18 * b))));
    }
  }
  {
    const auto rows = random_quantized_rows(GgmlType::Q8_0, 1, 32 * blocks, 11);
    for (std::size_t b = 0; b < blocks; ++b) {
      std::set<int> codes;
      for (int j = 0; j < 32; ++j) codes.insert(static_cast<std::int8_t>(rows[34 * b + 2 + j]));
      EXPECT_TRUE(codes.count(-128) == 1 && codes.count(127) == 1) << "Q8_0 block " << b;
    }
  }
  for (const GgmlType type : {GgmlType::Q4_K, GgmlType::Q5_K}) {
    const std::size_t size = block_bytes(type);
    const auto rows = random_quantized_rows(type, 1, 256 * blocks, 13);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint8_t* block = rows.data() + size * b;
      const std::uint8_t* qs = block + (type == GgmlType::Q4_K ? 16 : 48);
      std::set<int> codes;
      for (int c = 0; c < 4; ++c) {
        for (int l = 0; l < 32; ++l) {
          int low = qs[32 * c + l] & 0xf;
          int high = qs[32 * c + l] >> 4;
          if (type == GgmlType::Q5_K) {
            low += ((block[16 + l] >> (2 * c)) & 1) * 16;
            high += ((block[16 + l] >> (2 * c + 1)) & 1) * 16;
          }
          codes.insert(low);
          codes.insert(high);
        }
      }
      EXPECT_EQ(codes.size(), type == GgmlType::Q4_K ? 16u : 32u) << type_name(type) << " block " << b;
      const float d = fp16_to_fp32(u16_at(rows, size * b));
      const float dmin = fp16_to_fp32(u16_at(rows, size * b + 2));
      EXPECT_TRUE(std::isfinite(d) && d > 0 && std::isfinite(dmin) && dmin > 0);
    }
  }
  {
    const auto rows = random_quantized_rows(GgmlType::Q6_K, 1, 256 * blocks, 17);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint8_t* block = rows.data() + 210 * b;
      std::set<int> codes;
      for (int i = 0; i < 128; ++i) {
        // Every 4-bit half of ql pairs with some 2-bit field of qh; gather all
        // codes through the documented mapping.
        const int half = i / 64;
        const int l = i % 64;
        const std::uint8_t qh = block[128 + 32 * half + l % 32];
        const int shift_low = l < 32 ? 0 : 2;
        codes.insert((block[i] & 0xf) | (((qh >> shift_low) & 3) << 4));
        codes.insert((block[i] >> 4) | (((qh >> (shift_low + 4)) & 3) << 4));
      }
      EXPECT_EQ(codes.size(), 64u) << "Q6_K block " << b;
      EXPECT_TRUE(std::isfinite(fp16_to_fp32(u16_at(rows, 210 * b + 208))));
    }
  }
}

// The types added with issue 44: codes gathered through the published
// layouts (written out here), every value in every block; fields finite.
TEST(RandomRows, EveryCodeValueInEveryBlockOfTheNewerTypes) {
  const std::size_t blocks = 16;
  struct Case {
    GgmlType type;
    std::size_t levels;
    std::size_t scale_at;  // an fp16 field that must be finite
  };
  for (const Case c : {Case{GgmlType::Q5_0, 32, 0}, Case{GgmlType::Q5_1, 32, 2}, Case{GgmlType::Q2_K, 4, 80},
                       Case{GgmlType::Q3_K, 8, 108}, Case{GgmlType::IQ4_NL, 16, 0}, Case{GgmlType::IQ4_XS, 16, 0}}) {
    const std::size_t size = block_bytes(c.type);
    const auto rows = random_quantized_rows(c.type, 1, block_weights(c.type) * blocks, 19);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint8_t* block = rows.data() + size * b;
      std::set<int> codes;
      switch (c.type) {
        case GgmlType::Q5_0:
        case GgmlType::Q5_1: {
          const std::size_t qh = c.type == GgmlType::Q5_0 ? 2 : 4;
          for (int j = 0; j < 32; ++j) {
            const int nibble = j < 16 ? block[qh + 4 + j] & 15 : block[qh + 4 + j - 16] >> 4;
            codes.insert(nibble | (((block[qh + j / 8] >> (j % 8)) & 1) << 4));
          }
          break;
        }
        case GgmlType::Q2_K:
          for (int i = 0; i < 64; ++i) {
            for (int p = 0; p < 4; ++p) codes.insert((block[16 + i] >> (2 * p)) & 3);
          }
          break;
        case GgmlType::Q3_K:
          for (int w = 0; w < 256; ++w) {
            const int h = w / 128, p = (w % 128) / 32, l = w % 32;
            codes.insert(((block[32 + 32 * h + l] >> (2 * p)) & 3) | (((block[l] >> (4 * h + p)) & 1) << 2));
          }
          break;
        case GgmlType::IQ4_NL:
        case GgmlType::IQ4_XS: {
          const std::size_t qs = c.type == GgmlType::IQ4_NL ? 2 : 8;
          for (std::size_t i = 0; i < block_weights(c.type) / 2; ++i) {
            codes.insert(block[qs + i] & 15);
            codes.insert(block[qs + i] >> 4);
          }
          break;
        }
        default:
          FAIL() << "no layout here for " << type_name(c.type);
      }
      EXPECT_EQ(codes.size(), c.levels) << type_name(c.type) << " block " << b;
      EXPECT_TRUE(std::isfinite(fp16_to_fp32(u16_at(rows, size * b + c.scale_at)))) << type_name(c.type);
    }
  }
}

// Adversarial rows (scales at the ends of their ranges, fp16 subnormals,
// blocks of one extreme code) of every type stay finite and within about ±1.
TEST(RandomRows, AdversarialRowsAreFiniteAndBounded) {
  for (const GgmlType type : all_ggml_types()) {
    const auto rows = random_quantized_rows(type, 8, 1024, 23, InputKind::adversarial);
    bool some_nonzero = false;
    for (const float v : dequantize_rows(type, rows.data(), 8, 1024)) {
      ASSERT_TRUE(std::isfinite(v)) << type_name(type);
      ASSERT_LE(std::fabs(v), 1.05f) << type_name(type);
      some_nonzero = some_nonzero || v != 0.0f;
    }
    EXPECT_TRUE(some_nonzero) << type_name(type);
  }
}

TEST(RandomFloats, RangeAndSeed) {
  const auto a = random_floats(1000, 1, -2.0f, 3.0f);
  EXPECT_EQ(a, random_floats(1000, 1, -2.0f, 3.0f));
  for (const float v : a) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
}

}  // namespace
}  // namespace vktune::ref
