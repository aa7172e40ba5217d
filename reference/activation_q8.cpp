#include "reference/activation_q8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "reference/matmul.hpp"

namespace vktune::ref {

namespace {

constexpr std::size_t kRun = 32;  // x values sharing one dx

}  // namespace

std::vector<float> quantize_activations_q8(const float* x, std::size_t k) {
  if (k % kRun != 0) throw Error(ErrorKind::usage, "8-bit activations take runs of 32 values; k is not a multiple");
  std::vector<float> out(k);
  for (std::size_t r = 0; r < k; r += kRun) {
    float amax = 0.0f;
    for (std::size_t i = r; i < r + kRun; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float inv = amax > 0.0f ? 1.0f / amax : 0.0f;
    const float dx = amax * (1.0f / 127.0f);
    for (std::size_t i = r; i < r + kRun; ++i) {
      const float code = std::round(std::clamp(x[i] * inv, -1.0f, 1.0f) * 127.0f);
      out[i] = code * dx;
    }
  }
  return out;
}

std::vector<double> matmul_quantized_q8_activations(const float* x, std::size_t m, const std::uint8_t* w, GgmlType type,
                                                    std::size_t n, std::size_t k) {
  std::vector<float> xq(m * k);
  for (std::size_t i = 0; i < m; ++i) {
    const auto row = quantize_activations_q8(x + i * k, k);
    std::copy(row.begin(), row.end(), xq.begin() + static_cast<std::ptrdiff_t>(i * k));
  }
  return matmul_quantized(xq.data(), m, w, type, n, k);
}

}  // namespace vktune::ref
