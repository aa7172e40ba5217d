#include "reference/activation_q8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/matmul.hpp"

namespace vktune::ref {

namespace {

constexpr std::size_t kRun = 32;  // x values sharing one dx

// The min term of each weight: the block with its codes zeroed dequantizes
// to -dmin·m (GGUF block layouts: d, dmin and 12 bytes of scales come first,
// the codes after them). Zero for types whose offset is part of the code.
std::vector<float> min_terms(GgmlType type, const std::uint8_t* w, std::size_t n, std::size_t k) {
  std::size_t header = 0;
  if (type == GgmlType::Q4_K || type == GgmlType::Q5_K) header = 2 + 2 + 12;
  if (header == 0) return std::vector<float>(n * k, 0.0f);
  const std::size_t bytes = n * row_bytes(type, k);
  std::vector<std::uint8_t> heads(w, w + bytes);
  const std::size_t block = block_bytes(type);
  for (std::size_t b = 0; b < bytes; b += block) std::fill(heads.begin() + b + header, heads.begin() + b + block, 0);
  return dequantize_rows(type, heads.data(), n, k);
}

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

std::vector<double> matmul_quantized_q8_activations(const float* x, std::size_t m, const std::uint8_t* w,
                                                    GgmlType type, std::size_t n, std::size_t k) {
  const auto weights = dequantize_rows(type, w, n, k);
  const auto mins = min_terms(type, w, n, k);
  std::vector<double> y(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    const auto xq = quantize_activations_q8(x + i * k, k);
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::size_t t = 0; t < k; ++t) {
        const double min = mins[j * k + t];
        sum += (static_cast<double>(weights[j * k + t]) - min) * xq[t] + min * x[i * k + t];
      }
      y[i * n + j] = sum;
    }
  }
  return y;
}

}  // namespace vktune::ref
