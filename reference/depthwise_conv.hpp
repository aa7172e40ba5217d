#pragma once
// Reference depthwise 3×3 convolution (MobileNet's), accumulated in double.
//   x: batch × height × width × channels floats (NHWC, channels fastest).
//   w: 3 × 3 × channels floats (ky, kx, c): channel c has its own 3×3 filter.
//   b: channels floats, always added.
//   y: batch × out_h × out_w × channels doubles (NHWC), with padding 1 (zeros)
//      and out_h = floor((height - 1) / stride) + 1 (the same for width):
//        y[n][oy][ox][c] = b[c] + sum over ky, kx = 0..2 of
//            (double)x[n][oy*stride - 1 + ky][ox*stride - 1 + kx][c] * (double)w[ky][kx][c]
//      accumulated from b[c] in the order ky, then kx; taps outside the input
//      read 0 (skipped). With relu6 the sum is then clamped: min(max(v, 0), 6).
// Sizes that do not match give Error(usage).
#include <cstddef>
#include <span>
#include <vector>

namespace vktune::ref {

struct DepthwiseShape {
  std::size_t batch = 1;
  std::size_t height = 1;
  std::size_t width = 1;
  std::size_t channels = 1;
  std::size_t stride = 1;
};

// floor((in - 1) / stride) + 1: the output extent of a 3×3 window with
// padding 1 along an input extent `in` (≥ 1) at `stride` (≥ 1).
std::size_t depthwise_output_extent(std::size_t in, std::size_t stride);

std::vector<double> depthwise_conv2d_3x3(std::span<const float> x, std::span<const float> w, std::span<const float> b,
                                         const DepthwiseShape& shape, bool relu6);
// The same over double operands (a composed reference's intermediate arrays).
std::vector<double> depthwise_conv2d_3x3(std::span<const double> x, std::span<const double> w,
                                         std::span<const double> b, const DepthwiseShape& shape, bool relu6);

}  // namespace vktune::ref
