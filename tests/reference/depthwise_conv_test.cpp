// The depthwise 3×3 convolution reference against a closed-form case and
// against a computation written here another way (the input copied into a
// zero-padded image first, so no tap is ever skipped), on fresh random
// inputs, for both strides, odd extents and channel counts.
#include "reference/depthwise_conv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "random_floats.hpp"

namespace vktune::ref {
namespace {

using Floats = std::vector<float>;
using testing::random_floats;

// y by way of a padded copy of x: (height + 2) × (width + 2) per image,
// border zeros, output pixel (oy, ox) reading padded rows oy*S .. oy*S + 2.
std::vector<double> padded_convolution(const Floats& x, const Floats& w, const Floats& b, const DepthwiseShape& s,
                                       bool relu6) {
  const int H = static_cast<int>(s.height), W = static_cast<int>(s.width), C = static_cast<int>(s.channels);
  const int S = static_cast<int>(s.stride), Hp = H + 2, Wp = W + 2;
  int Ho = 0, Wo = 0;
  while (Ho * S <= H - 1) ++Ho;  // the count of window starts inside the padded rows
  while (Wo * S <= W - 1) ++Wo;
  std::vector<double> padded(s.batch * Hp * Wp * C, 0.0);
  for (std::size_t n = 0; n < s.batch; ++n)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j)
        for (int c = 0; c < C; ++c) padded[((n * Hp + i + 1) * Wp + j + 1) * C + c] = x[((n * H + i) * W + j) * C + c];
  std::vector<double> y;
  for (std::size_t n = 0; n < s.batch; ++n)
    for (int oy = 0; oy < Ho; ++oy)
      for (int ox = 0; ox < Wo; ++ox)
        for (int c = 0; c < C; ++c) {
          double v = b[c];
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx)
              v += padded[((n * Hp + oy * S + ky) * Wp + ox * S + kx) * C + c] * double(w[(ky * 3 + kx) * C + c]);
          y.push_back(relu6 ? std::clamp(v, 0.0, 6.0) : v);
        }
  return y;
}

TEST(DepthwiseConv, ClosedFormOnesCountTheTapsInsideTheImage) {
  // 3×4 ones, one channel, weights 1, bias 0.5: a pixel sums the taps that
  // fall inside: 4 at corners, 6 on edges, 9 inside.
  const DepthwiseShape s{1, 3, 4, 1, 1};
  const Floats x(12, 1.0f), w(9, 1.0f), b{0.5f};
  const auto y = depthwise_conv2d_3x3(x, w, b, s, false);
  const std::vector<double> want{4.5, 6.5, 6.5, 4.5, 6.5, 9.5, 9.5, 6.5, 4.5, 6.5, 6.5, 4.5};
  EXPECT_EQ(y, want);
  // ReLU6 caps the 6.5 and 9.5 at 6, and a negative bias below 0 at 0.
  const auto capped = depthwise_conv2d_3x3(x, w, b, s, true);
  EXPECT_EQ(capped, (std::vector<double>{4.5, 6, 6, 4.5, 6, 6, 6, 6, 4.5, 6, 6, 4.5}));
  const Floats negative{-10.0f};
  for (double v : depthwise_conv2d_3x3(x, w, negative, s, true)) EXPECT_EQ(v, 0.0);
  // Stride 2 over 3×4: outputs at input (0,0), (0,2), (2,0), (2,2).
  EXPECT_EQ(depthwise_conv2d_3x3(x, w, b, {1, 3, 4, 1, 2}, false), (std::vector<double>{4.5, 6.5, 4.5, 6.5}));
}

TEST(DepthwiseConv, OutputExtentIsFloorOfInMinusOneOverStridePlusOne) {
  EXPECT_EQ(depthwise_output_extent(112, 1), 112u);
  EXPECT_EQ(depthwise_output_extent(112, 2), 56u);
  EXPECT_EQ(depthwise_output_extent(7, 2), 4u);
  EXPECT_EQ(depthwise_output_extent(6, 2), 3u);
  EXPECT_EQ(depthwise_output_extent(1, 2), 1u);
}

TEST(DepthwiseConv, MatchesAPaddedImageComputationOnRandomInputs) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const DepthwiseShape shapes[] = {{1, 7, 7, 13, 2}, {2, 9, 6, 8, 1},  {1, 5, 11, 4, 2}, {1, 1, 1, 3, 1},
                                   {1, 2, 3, 5, 2},  {3, 6, 5, 13, 1}, {1, 8, 9, 7, 2}};
  for (const auto& s : shapes) {
    for (bool relu6 : {false, true}) {
      SCOPED_TRACE(std::to_string(s.batch) + "x" + std::to_string(s.height) + "x" + std::to_string(s.width) + "x" +
                   std::to_string(s.channels) + " stride " + std::to_string(s.stride) + (relu6 ? " relu6" : ""));
      // Inputs wide enough that some sums pass 6 and some fall below 0.
      const auto x = random_floats(s.batch * s.height * s.width * s.channels, rng, -4.0f, 4.0f);
      const auto w = random_floats(9 * s.channels, rng, -1.0f, 1.0f);
      const auto b = random_floats(s.channels, rng, -1.0f, 1.0f);
      const auto want = padded_convolution(x, w, b, s, relu6);
      const auto have = depthwise_conv2d_3x3(x, w, b, s, relu6);
      ASSERT_EQ(have.size(), want.size());
      EXPECT_EQ(have.size(), s.batch * depthwise_output_extent(s.height, s.stride) *
                                 depthwise_output_extent(s.width, s.stride) * s.channels);
      for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(have[i], want[i], 1e-12) << "at " << i;
    }
  }
}

TEST(DepthwiseConv, SizesThatDoNotMatchAreUsageErrors) {
  const DepthwiseShape s{1, 3, 3, 2, 1};
  const Floats x(18), w(18), b(2);
  EXPECT_NO_THROW((void)depthwise_conv2d_3x3(x, w, b, s, false));
  EXPECT_THROW((void)depthwise_conv2d_3x3(Floats(17), w, b, s, false), Error);
  EXPECT_THROW((void)depthwise_conv2d_3x3(x, Floats(9), b, s, false), Error);
  EXPECT_THROW((void)depthwise_conv2d_3x3(x, w, Floats(3), s, false), Error);
  EXPECT_THROW((void)depthwise_conv2d_3x3(x, w, b, {1, 3, 3, 2, 0}, false), Error);
  // Sizes whose product wraps around 2^64 to the input's 18 describe no buffer.
  const std::size_t huge = std::size_t{1} << 32;
  EXPECT_THROW((void)depthwise_conv2d_3x3(x, w, b, {huge, huge, 1, 18, 1}, false), Error);
  try {
    (void)depthwise_conv2d_3x3(x, w, Floats(3), s, false);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_STREQ(e.what(), "depthwise_conv2d: b has 3 values, expected 2");
  }
}

}  // namespace
}  // namespace vktune::ref
