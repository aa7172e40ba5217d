#include <gtest/gtest.h>

#include <vector>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/matmul.hpp"
#include "reference/quantize.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::ref {
namespace {

TEST(Matmul, IdentityWeightsReturnTheInput) {
  const std::size_t m = 3, k = 4;
  const std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 0.25f, 8, 1e-3f, 1e3f, -7, 0};
  std::vector<float> identity(k * k, 0.0f);
  for (std::size_t i = 0; i < k; ++i) identity[i * k + i] = 1.0f;
  const auto y = matmul_f32(x.data(), identity.data(), m, k, k);
  ASSERT_EQ(y.size(), m * k);
  for (std::size_t i = 0; i < m * k; ++i) EXPECT_EQ(y[i], static_cast<double>(x[i]));
}

TEST(Matmul, WeightsAreRowsOfK) {
  // y = x · Wᵀ with W 2×3: y[j] = dot(x, W row j).
  const std::vector<float> x = {1, 2, 3};
  const std::vector<float> w = {1, 0, 0, 1, 10, 100};
  const auto y = matmul_f32(x.data(), w.data(), 1, 2, 3);
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[1], 321.0);
}

TEST(Matmul, AccumulatesInDouble) {
  // In float, 1e8 + 1 - 1e8 is 0; in double it is 1.
  const std::vector<float> x = {1e8f, 1.0f, -1e8f};
  const std::vector<float> w = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(matmul_f32(x.data(), w.data(), 1, 1, 3)[0], 1.0);
}

TEST(Matmul, QuantizedEqualsDequantizedThenFloat) {
  const std::size_t m = 2, n = 3, k = 256;
  const auto x = random_floats(m * k, 1);
  for (const GgmlType type : all_ggml_types()) {
    const auto w = random_quantized_rows(type, n, k, 2);
    const auto dense = dequantize_rows(type, w.data(), n, k);
    const auto expected = matmul_f32(x.data(), dense.data(), m, n, k);
    EXPECT_EQ(matmul_quantized(x.data(), m, w.data(), type, n, k), expected) << type_name(type);
  }
}

TEST(Matmul, QuantizedHandBuiltQ8_0) {
  // One Q8_0 row: d = 0.5, codes 0..31 -> weights 0, 0.5, ..., 15.5; x all ones.
  std::vector<std::uint8_t> w(34);
  w[0] = 0x00;
  w[1] = 0x38;
  for (int j = 0; j < 32; ++j) w[2 + j] = static_cast<std::uint8_t>(j);
  const std::vector<float> x(32, 1.0f);
  EXPECT_EQ(matmul_quantized(x.data(), 1, w.data(), GgmlType::Q8_0, 1, 32)[0], 0.5 * (31 * 32 / 2));
  EXPECT_THROW((void)matmul_quantized(x.data(), 1, w.data(), GgmlType::Q8_0, 1, 16), Error);
}

}  // namespace
}  // namespace vktune::ref
