// The conv2d reference against closed-form cases and against a computation
// written here another way (every input value scattered onto the outputs
// whose windows hold it, so the loops run over the input, not the output),
// on fresh random inputs: 1×1 (MobileNet's pointwise layers, as a matrix
// product), 3×3 stride 2 padding 1 (its stem), odd extents and channel
// counts, and a padding-0 3×3 window.
#include "reference/conv2d.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "random_floats.hpp"

namespace vktune::ref {
namespace {

using Floats = std::vector<float>;
using testing::random_floats;

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
