#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/fp16.hpp"
#include "reference/quantize.hpp"

namespace vktune::ref {
namespace {

std::vector<float> gaussian(std::size_t n, std::uint64_t seed, float sigma = 1.0f) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> out(n);
  for (auto& v : out) v = dist(engine);
  return out;
}

std::vector<float> round_trip(GgmlType type, const std::vector<float>& x) {
  const auto bytes = quantize_row(type, x.data(), x.size());
  EXPECT_EQ(bytes.size(), row_bytes(type, x.size()));
  std::vector<float> y(x.size());
  dequantize_row(type, bytes.data(), y.data(), x.size());
  return y;
}

struct ErrorStats {
  double relative_rms;
  double max_over_block_absmax;  // worst |error| / max |x| of its block
};

ErrorStats error_stats(const std::vector<float>& x, const std::vector<float>& y, std::size_t block) {
  double error2 = 0, signal2 = 0, worst = 0;
  for (std::size_t b = 0; b < x.size(); b += block) {
    double absmax = 0, max_error = 0;
    for (std::size_t i = b; i < b + block; ++i) {
      const double e = static_cast<double>(x[i]) - y[i];
      error2 += e * e;
      signal2 += static_cast<double>(x[i]) * x[i];
      absmax = std::max(absmax, std::fabs(static_cast<double>(x[i])));
      max_error = std::max(max_error, std::fabs(e));
    }
    if (absmax > 0) worst = std::max(worst, max_error / absmax);
  }
  return {std::sqrt(error2 / signal2), worst};
}

struct Bound {
  GgmlType type;
  double relative_rms;
  double max_over_absmax;
};

// Bounds per type for Gaussian rows: a quantizer that loses a bit of
// precision (or a code position) fails them.
constexpr Bound kBounds[] = {
    {GgmlType::F32, 0.0, 0.0},          {GgmlType::F16, 3e-4, 5e-4},
    {GgmlType::Q8_0, 0.0055, 0.0045},   {GgmlType::Q4_0, 0.09, 0.13},
    {GgmlType::Q4_K, 0.08, 0.105},       {GgmlType::Q5_K, 0.04, 0.06},
    {GgmlType::Q6_K, 0.019, 0.02},
    // Measured 0.041/0.047, 0.035/0.057, 0.268/0.414, 0.153/0.188,
    // 0.076/0.109 and 0.077/0.085 when these quantizers were written.
    {GgmlType::Q5_0, 0.045, 0.052},     {GgmlType::Q5_1, 0.038, 0.063},
    {GgmlType::Q2_K, 0.29, 0.45},       {GgmlType::Q3_K, 0.165, 0.21},
    {GgmlType::IQ4_NL, 0.083, 0.12},    {GgmlType::IQ4_XS, 0.084, 0.093},
};

TEST(Quantize, EveryTypeHasABound) {
  for (const GgmlType type : all_ggml_types()) {
    EXPECT_TRUE(std::any_of(std::begin(kBounds), std::end(kBounds), [&](const Bound& b) { return b.type == type; }))
        << type_name(type);
  }
}

TEST(Quantize, RoundTripErrorBoundsPerType) {
  const auto x = gaussian(256 * 64, 42);
  for (const Bound& bound : kBounds) {
    const auto y = round_trip(bound.type, x);
    const ErrorStats stats = error_stats(x, y, block_weights(bound.type) == 1 ? 32 : block_weights(bound.type));
    EXPECT_LE(stats.relative_rms, bound.relative_rms) << type_name(bound.type);
    EXPECT_LE(stats.max_over_block_absmax, bound.max_over_absmax) << type_name(bound.type);
  }
}

TEST(Quantize, ScaleInvariantAcrossMagnitudes) {
  for (const float sigma : {1e-3f, 1.0f, 100.0f}) {
    const auto x = gaussian(256 * 8, 7, sigma);
    for (const Bound& bound : kBounds) {
      const auto y = round_trip(bound.type, x);
      EXPECT_LE(error_stats(x, y, 256).relative_rms, bound.relative_rms * 1.1)
          << type_name(bound.type) << " sigma " << sigma;
    }
  }
}

TEST(Quantize, ZerosStayZero) {
  const std::vector<float> x(512, 0.0f);
  for (const GgmlType type : all_ggml_types()) {
    const auto y = round_trip(type, x);
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], 0.0f) << type_name(type) << " " << i;
  }
}

TEST(Quantize, ExactlyRepresentableRowsAreExact) {
  // Q8_0 and Q4_0 rows that are integer multiples of a power of two with the
  // largest magnitude at the negative end come back exactly.
  std::vector<float> q8(64);
  std::vector<float> q4(64);
  for (std::size_t i = 0; i < 64; ++i) {
    q8[i] = 0.25f * static_cast<float>(static_cast<int>(i * 37 % 255) - 127);
    q4[i] = 0.5f * static_cast<float>(static_cast<int>(i * 5 % 16) - 8);
  }
  q8[0] = q8[32] = -0.25f * 127.0f;  // the extreme of each block
  q4[0] = q4[32] = -4.0f;
  EXPECT_EQ(round_trip(GgmlType::Q8_0, q8), q8);
  EXPECT_EQ(round_trip(GgmlType::Q4_0, q4), q4);
  // Q5_0: multiples of 0.25 in -16..15 steps; IQ4_NL: 0.5 times grid values,
  // with the grid's most negative entry (-127) in every block.
  std::vector<float> q5(64);
  std::vector<float> nl(64);
  const int grid[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  for (std::size_t i = 0; i < 64; ++i) {
    q5[i] = 0.25f * static_cast<float>(static_cast<int>(i * 7 % 32) - 16);
    nl[i] = 0.5f * static_cast<float>(grid[i * 5 % 16]);
  }
  EXPECT_EQ(round_trip(GgmlType::Q5_0, q5), q5);
  EXPECT_EQ(round_trip(GgmlType::IQ4_NL, nl), nl);
}

TEST(Quantize, PositiveOnlyAndConstantSubBlocks) {
  // K-quants with all-positive data use min 0, and a constant sub-block is
  // reproduced closely.
  std::vector<float> x(256);
  for (std::size_t i = 0; i < 256; ++i) x[i] = i < 32 ? 3.0f : 1.0f + static_cast<float>(i % 32) / 31.0f;
  for (const GgmlType type : {GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K}) {
    const auto y = round_trip(type, x);
    for (std::size_t i = 0; i < 32; ++i) EXPECT_NEAR(y[i], 3.0f, 0.05f) << type_name(type);
    EXPECT_LE(error_stats(x, y, 256).relative_rms, type == GgmlType::Q4_K ? 0.03 : 0.015) << type_name(type);
  }
}

TEST(Quantize, RowsAndValidation) {
  const auto x = gaussian(512, 3);
  const auto rows = quantize_rows(GgmlType::Q4_K, x.data(), 2, 256);
  const auto first = quantize_row(GgmlType::Q4_K, x.data(), 256);
  const auto second = quantize_row(GgmlType::Q4_K, x.data() + 256, 256);
  ASSERT_EQ(rows.size(), 288u);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), rows.begin()));
  EXPECT_TRUE(std::equal(second.begin(), second.end(), rows.begin() + 144));
  EXPECT_THROW((void)quantize_row(GgmlType::Q5_K, x.data(), 100), Error);
}

}  // namespace
}  // namespace vktune::ref
