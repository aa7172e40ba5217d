#include "reference/depthwise_conv.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "reference/operand_sizes.hpp"

namespace vktune::ref {

constexpr const char* kDepthwise = "depthwise_conv2d";  // what its errors start with

std::size_t depthwise_output_extent(std::size_t in, std::size_t stride) { return (in - 1) / stride + 1; }

namespace {

template <class T>
std::vector<double> depthwise_of(std::span<const T> x, std::span<const T> w, std::span<const T> b,
                                 const DepthwiseShape& s, bool relu6) {
  if (s.batch == 0 || s.height == 0 || s.width == 0 || s.channels == 0 || s.stride == 0) {
    throw Error(ErrorKind::usage, "depthwise_conv2d: batch, height, width, channels and stride must be at least 1");
  }
  expect_size(kDepthwise, x, checked_product(kDepthwise, {s.batch, s.height, s.width, s.channels}), "x");
  expect_size(kDepthwise, w, checked_product(kDepthwise, {9, s.channels}), "w");
  expect_size(kDepthwise, b, s.channels, "b");
  const std::size_t out_h = depthwise_output_extent(s.height, s.stride);
  const std::size_t out_w = depthwise_output_extent(s.width, s.stride);
  const std::size_t c_count = s.channels;
  std::vector<double> y(s.batch * out_h * out_w * c_count);
  for (std::size_t n = 0; n < s.batch; ++n) {
    for (std::size_t oy = 0; oy < out_h; ++oy) {
      for (std::size_t ox = 0; ox < out_w; ++ox) {
        double* out = y.data() + ((n * out_h + oy) * out_w + ox) * c_count;
        for (std::size_t c = 0; c < c_count; ++c) out[c] = b[c];
        for (std::size_t ky = 0; ky < 3; ++ky) {
          // Unsigned arithmetic: the padded row oy*stride + ky is 1 past the input's.
          const std::size_t iy = oy * s.stride + ky;
          if (iy < 1 || iy > s.height) continue;
          for (std::size_t kx = 0; kx < 3; ++kx) {
            const std::size_t ix = ox * s.stride + kx;
            if (ix < 1 || ix > s.width) continue;
            const T* in = x.data() + ((n * s.height + iy - 1) * s.width + ix - 1) * c_count;
            const T* tap = w.data() + (ky * 3 + kx) * c_count;
            for (std::size_t c = 0; c < c_count; ++c)
              out[c] += static_cast<double>(in[c]) * static_cast<double>(tap[c]);
          }
        }
        if (relu6) {
          for (std::size_t c = 0; c < c_count; ++c) out[c] = std::min(std::max(out[c], 0.0), 6.0);
        }
      }
    }
  }
  return y;
}

}  // namespace

std::vector<double> depthwise_conv2d_3x3(std::span<const float> x, std::span<const float> w, std::span<const float> b,
                                         const DepthwiseShape& s, bool relu6) {
  return depthwise_of(x, w, b, s, relu6);
}

std::vector<double> depthwise_conv2d_3x3(std::span<const double> x, std::span<const double> w,
                                         std::span<const double> b, const DepthwiseShape& s, bool relu6) {
  return depthwise_of(x, w, b, s, relu6);
}

}  // namespace vktune::ref
