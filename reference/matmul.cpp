#include "reference/matmul.hpp"

#include "reference/dequantize.hpp"

namespace vktune::ref {

namespace {

template <class T>
double dot(const T* a, const T* b, std::size_t k) {
  double sum = 0.0;
  for (std::size_t t = 0; t < k; ++t) sum += static_cast<double>(a[t]) * static_cast<double>(b[t]);
  return sum;
}

template <class T>
std::vector<double> matmul_of(const T* x, const T* w, std::size_t m, std::size_t n, std::size_t k) {
  std::vector<double> y(m * n);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) y[i * n + j] = dot(x + i * k, w + j * k, k);
  }
  return y;
}

}  // namespace

std::vector<double> matmul_f32(const float* x, const float* w, std::size_t m, std::size_t n, std::size_t k) {
  return matmul_of(x, w, m, n, k);
}

std::vector<double> matmul_f64(const double* x, const double* w, std::size_t m, std::size_t n, std::size_t k) {
  return matmul_of(x, w, m, n, k);
}

std::vector<double> matmul_quantized(const float* x, std::size_t m, const std::uint8_t* w, GgmlType type,
                                     std::size_t n, std::size_t k) {
  const std::vector<float> weights = dequantize_rows(type, w, n, k);
  return matmul_f32(x, weights.data(), m, n, k);
}

}  // namespace vktune::ref
