#pragma once
// Reference 2-D convolution (groups 1), accumulated in double: MobileNet's
// pointwise 1×1 convolutions and its 3×3 stem.
//   x: batch × height × width × in_channels floats (NHWC, channels fastest).
//   w: out_channels × kernel × kernel × in_channels floats (OHWI, TFLite's
//      CONV_2D filter layout; for kernel 1 it is [out][in], which PyTorch's
//      OIHW weight of a 1×1 convolution also is).
//   b: out_channels floats, always added.
//   y: batch × out_h × out_w × out_channels doubles (NHWC), zero padding
//      `padding` on every side, out_h = floor((height + 2*padding - kernel) / stride) + 1
//      (the same for width):
//        y[n][oy][ox][co] = b[co] + sum over ky, kx, ci of
//            (double)x[n][oy*stride - padding + ky][ox*stride - padding + kx][ci] * (double)w[co][ky][kx][ci]
//      accumulated from b[co] in the order ky, kx, ci; taps outside the input
//      read 0 (skipped). With relu6 the sum is then clamped: min(max(v, 0), 6).
// Sizes that do not match, or a window larger than the padded input, give
// Error(usage).
#include <cstddef>
#include <span>
#include <vector>

namespace vktune::ref {

struct Conv2dShape {
  std::size_t batch = 1;
  std::size_t height = 1;
  std::size_t width = 1;
  std::size_t in_channels = 1;
  std::size_t out_channels = 1;
  std::size_t kernel = 1;  // kernel × kernel taps
  std::size_t stride = 1;
  std::size_t padding = 0;
};

// floor((in + 2*padding - kernel) / stride) + 1, or 0 where the window does
// not fit in the padded extent (kernel > in + 2*padding) or stride is 0.
std::size_t conv2d_output_extent(std::size_t in, std::size_t kernel, std::size_t stride, std::size_t padding);

std::vector<double> conv2d(std::span<const float> x, std::span<const float> w, std::span<const float> b,
                           const Conv2dShape& shape, bool relu6);
// The same over double operands (a composed reference's intermediate arrays).
std::vector<double> conv2d(std::span<const double> x, std::span<const double> w, std::span<const double> b,
                           const Conv2dShape& shape, bool relu6);

}  // namespace vktune::ref
