// The convolution references (reference/depthwise_conv, reference/conv2d),
// each against closed-form cases and against a computation written here
// another way, on fresh random inputs:
// - depthwise 3×3: the input copied into a zero-padded image first, so no
//   tap is ever skipped; both strides, odd extents and channel counts;
// - conv2d: every input value scattered onto the outputs whose windows hold
//   it, so the loops run over the input, not the output; 1×1 (MobileNet's
//   pointwise layers, as a matrix product), 3×3 stride 2 padding 1 (its
//   stem), odd extents and channel counts, and a padding-0 3×3 window.
// One source file: each costs CI a compile of Google Test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "random_floats.hpp"
#include "reference/conv2d.hpp"
#include "reference/depthwise_conv.hpp"

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

// Each x value adds x * w to every output whose window covers it; the output
// extents by counting window starts that fit in the padded input.
std::vector<double> scattered_convolution(const Floats& x, const Floats& w, const Floats& b, const Conv2dShape& s,
                                          bool relu6) {
  const long H = long(s.height), W = long(s.width), CI = long(s.in_channels), CO = long(s.out_channels);
  const long K = long(s.kernel), S = long(s.stride), P = long(s.padding);
  long Ho = 0, Wo = 0;
  while (Ho * S + K <= H + 2 * P) ++Ho;
  while (Wo * S + K <= W + 2 * P) ++Wo;
  std::vector<double> y(s.batch * Ho * Wo * CO);
  for (long n = 0; n < long(s.batch); ++n)
    for (long p = 0; p < Ho * Wo; ++p)
      for (long co = 0; co < CO; ++co) y[(n * Ho * Wo + p) * CO + co] = b[co];
  for (long n = 0; n < long(s.batch); ++n)
    for (long iy = 0; iy < H; ++iy)
      for (long ix = 0; ix < W; ++ix)
        for (long ky = 0; ky < K; ++ky)
          for (long kx = 0; kx < K; ++kx) {
            // The output (oy, ox) whose tap (ky, kx) lands on (iy, ix), if any.
            const long ry = iy + P - ky, rx = ix + P - kx;
            if (ry < 0 || rx < 0 || ry % S != 0 || rx % S != 0 || ry / S >= Ho || rx / S >= Wo) continue;
            for (long co = 0; co < CO; ++co)
              for (long ci = 0; ci < CI; ++ci)
                y[((n * Ho + ry / S) * Wo + rx / S) * CO + co] +=
                    double(x[((n * H + iy) * W + ix) * CI + ci]) * double(w[((co * K + ky) * K + kx) * CI + ci]);
          }
  if (relu6)
    for (auto& v : y) v = std::clamp(v, 0.0, 6.0);
  return y;
}

TEST(Conv2d, ClosedFormOnesCountTheTapsInsideTheImage) {
  // 3×4 ones, one input channel, two output channels with weights 1 and 2,
  // bias 0.5 and 0: a 3×3 window with padding 1 counts the taps inside:
  // 4 at corners, 6 on edges, 9 inside.
  const Conv2dShape s{1, 3, 4, 1, 2, 3, 1, 1};
  Floats w(18, 1.0f);
  std::fill(w.begin() + 9, w.end(), 2.0f);
  const Floats x(12, 1.0f), b{0.5f, 0.0f};
  const std::vector<double> counts{4, 6, 6, 4, 6, 9, 9, 6, 4, 6, 6, 4};
  std::vector<double> want;
  for (double c : counts) want.insert(want.end(), {c + 0.5, 2 * c});
  EXPECT_EQ(conv2d(x, w, b, s, false), want);
  // ReLU6 caps at 6; a negative bias below 0 clamps to 0.
  for (auto& v : want) v = std::min(v, 6.0);
  EXPECT_EQ(conv2d(x, w, b, s, true), want);
  for (double v : conv2d(x, w, Floats{-20.0f, -20.0f}, s, true)) EXPECT_EQ(v, 0.0);
  // Stride 2 over 3×4: windows centred on input (0,0), (0,2), (2,0), (2,2).
  Conv2dShape s2 = s;
  s2.stride = 2;
  EXPECT_EQ(conv2d(x, w, b, s2, false), (std::vector<double>{4.5, 8, 6.5, 12, 4.5, 8, 6.5, 12}));
}

TEST(Conv2d, OneByOneIsAMatrixProductOverPixels) {
  // y[p][co] = b[co] + sum over ci of x[p][ci] * w[co][ci], exactly representable values.
  const Conv2dShape s{1, 1, 2, 3, 2, 1, 1, 0};
  const Floats x{1, 2, 3, 4, 5, 6}, w{1, 0, -1, 2, 1, 0}, b{10, 20};
  EXPECT_EQ(conv2d(x, w, b, s, false), (std::vector<double>{10 + 1 - 3, 20 + 2 + 2, 10 + 4 - 6, 20 + 8 + 5}));
}

TEST(Conv2d, OutputExtentIsFloorOfPaddedInputMinusKernelOverStridePlusOne) {
  EXPECT_EQ(conv2d_output_extent(224, 3, 2, 1), 112u);  // MobileNet V2's stem
  EXPECT_EQ(conv2d_output_extent(9, 3, 2, 1), 5u);
  EXPECT_EQ(conv2d_output_extent(7, 3, 2, 1), 4u);
  EXPECT_EQ(conv2d_output_extent(7, 1, 1, 0), 7u);
  EXPECT_EQ(conv2d_output_extent(7, 3, 1, 0), 5u);
  EXPECT_EQ(conv2d_output_extent(1, 3, 1, 0), 0u);  // no window fits
  EXPECT_EQ(conv2d_output_extent(1, 3, 2, 1), 1u);
}

TEST(Conv2d, MatchesAScatteredComputationOnRandomInputs) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  // batch, height, width, in, out, kernel, stride, padding
  const Conv2dShape shapes[] = {{1, 7, 7, 13, 9, 1, 1, 0}, {2, 3, 5, 6, 7, 1, 1, 0}, {1, 9, 7, 3, 5, 3, 2, 1},
                                {2, 8, 6, 3, 4, 3, 2, 1},  {1, 5, 6, 2, 3, 3, 1, 1}, {1, 6, 7, 3, 2, 3, 1, 0},
                                {3, 1, 1, 4, 2, 3, 2, 1},  {1, 10, 9, 2, 3, 3, 2, 0}};
  for (const auto& s : shapes) {
    for (bool relu6 : {false, true}) {
      SCOPED_TRACE(std::to_string(s.batch) + "x" + std::to_string(s.height) + "x" + std::to_string(s.width) + "x" +
                   std::to_string(s.in_channels) + " -> " + std::to_string(s.out_channels) + " kernel " +
                   std::to_string(s.kernel) + " stride " + std::to_string(s.stride) + " padding " +
                   std::to_string(s.padding) + (relu6 ? " relu6" : ""));
      // Inputs wide enough that some sums pass 6 and some fall below 0.
      const auto x = random_floats(s.batch * s.height * s.width * s.in_channels, rng, -4.0f, 4.0f);
      const auto w = random_floats(s.out_channels * s.kernel * s.kernel * s.in_channels, rng, -1.0f, 1.0f);
      const auto b = random_floats(s.out_channels, rng, -1.0f, 1.0f);
      const auto want = scattered_convolution(x, w, b, s, relu6);
      const auto have = conv2d(x, w, b, s, relu6);
      ASSERT_EQ(have.size(), want.size());
      EXPECT_EQ(have.size(), s.batch * conv2d_output_extent(s.height, s.kernel, s.stride, s.padding) *
                                 conv2d_output_extent(s.width, s.kernel, s.stride, s.padding) * s.out_channels);
      for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(have[i], want[i], 1e-12) << "at " << i;
    }
  }
}

TEST(Conv2d, SizesThatDoNotMatchAreUsageErrors) {
  const Conv2dShape s{1, 3, 3, 2, 4, 3, 1, 1};
  const Floats x(18), w(72), b(4);
  EXPECT_NO_THROW((void)conv2d(x, w, b, s, false));
  EXPECT_THROW((void)conv2d(Floats(17), w, b, s, false), Error);
  EXPECT_THROW((void)conv2d(x, Floats(18), b, s, false), Error);
  EXPECT_THROW((void)conv2d(x, w, Floats(2), s, false), Error);
  EXPECT_THROW((void)conv2d(x, w, b, {1, 3, 3, 2, 4, 3, 0, 1}, false), Error);
  EXPECT_THROW((void)conv2d(x, w, b, {1, 1, 1, 2, 4, 3, 1, 0}, false), Error);  // no window fits
  // Sizes whose product wraps around 2^64 to the input's 18 describe no buffer.
  const std::size_t huge = std::size_t{1} << 32;
  EXPECT_THROW((void)conv2d(x, w, b, {huge, huge, 1, 18, 4, 1, 1, 0}, false), Error);
  try {
    (void)conv2d(x, w, Floats(3), s, false);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_STREQ(e.what(), "conv2d: b has 3 values, expected 4");
  }
}

}  // namespace
}  // namespace vktune::ref
