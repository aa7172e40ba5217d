#include "reference/conv2d.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "reference/operand_sizes.hpp"

namespace vktune::ref {

constexpr const char* kConv2d = "conv2d";  // what its errors start with

std::size_t conv2d_output_extent(std::size_t in, std::size_t kernel, std::size_t stride, std::size_t padding) {
  if (stride == 0 || kernel > in + 2 * padding) return 0;
  return (in + 2 * padding - kernel) / stride + 1;
}

namespace {

template <class T>
std::vector<double> conv2d_of(std::span<const T> x, std::span<const T> w, std::span<const T> b, const Conv2dShape& s,
                              bool relu6) {
  if (s.batch == 0 || s.height == 0 || s.width == 0 || s.in_channels == 0 || s.out_channels == 0 || s.kernel == 0 ||
      s.stride == 0) {
    throw Error(ErrorKind::usage, "conv2d: every size but the padding must be at least 1");
  }
  const std::size_t out_h = conv2d_output_extent(s.height, s.kernel, s.stride, s.padding);
  const std::size_t out_w = conv2d_output_extent(s.width, s.kernel, s.stride, s.padding);
  if (out_h == 0 || out_w == 0) throw Error(ErrorKind::usage, "conv2d: the window is larger than the padded input");
  const std::size_t ci_count = s.in_channels, co_count = s.out_channels;
  expect_size(kConv2d, x, checked_product(kConv2d, {s.batch, s.height, s.width, ci_count}), "x");
  expect_size(kConv2d, w, checked_product(kConv2d, {co_count, s.kernel, s.kernel, ci_count}), "w");
  expect_size(kConv2d, b, co_count, "b");
  std::vector<double> y(checked_product(kConv2d, {s.batch, out_h, out_w, co_count}));
  for (std::size_t n = 0; n < s.batch; ++n) {
    for (std::size_t oy = 0; oy < out_h; ++oy) {
      for (std::size_t ox = 0; ox < out_w; ++ox) {
        double* out = y.data() + ((n * out_h + oy) * out_w + ox) * co_count;
        for (std::size_t co = 0; co < co_count; ++co) {
          double v = b[co];
          for (std::size_t ky = 0; ky < s.kernel; ++ky) {
            // Unsigned arithmetic: the padded row oy*stride + ky is `padding` past the input's.
            const std::size_t iy = oy * s.stride + ky;
            if (iy < s.padding || iy >= s.height + s.padding) continue;
            for (std::size_t kx = 0; kx < s.kernel; ++kx) {
              const std::size_t ix = ox * s.stride + kx;
              if (ix < s.padding || ix >= s.width + s.padding) continue;
              const T* in = x.data() + ((n * s.height + iy - s.padding) * s.width + ix - s.padding) * ci_count;
              const T* tap = w.data() + ((co * s.kernel + ky) * s.kernel + kx) * ci_count;
              for (std::size_t ci = 0; ci < ci_count; ++ci)
                v += static_cast<double>(in[ci]) * static_cast<double>(tap[ci]);
            }
          }
          out[co] = relu6 ? std::min(std::max(v, 0.0), 6.0) : v;
        }
      }
    }
  }
  return y;
}

}  // namespace

std::vector<double> conv2d(std::span<const float> x, std::span<const float> w, std::span<const float> b,
                           const Conv2dShape& s, bool relu6) {
  return conv2d_of(x, w, b, s, relu6);
}

std::vector<double> conv2d(std::span<const double> x, std::span<const double> w, std::span<const double> b,
                           const Conv2dShape& s, bool relu6) {
  return conv2d_of(x, w, b, s, relu6);
}

}  // namespace vktune::ref
