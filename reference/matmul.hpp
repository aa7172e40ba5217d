#pragma once
// Reference matrix multiplication y = x · Wᵀ, accumulated in double.
//   x: m×k floats, row-major (row i is x[i*k .. i*k+k)).
//   W: n rows of k weights, row-major (the GGUF layout of a weight matrix,
//      ne[0] = k), as floats or as quantized rows of any supported type.
//   y: m×n doubles, row-major: y[i*n + j] = sum over t = 0..k-1, in order, of
//      (double)x[i*k+t] * (double)W[j][t]
// Quantized W is dequantized to float with dequantize_row first (bit-exact),
// so the only rounding is the double accumulation.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/gguf_types.hpp"

namespace vktune::ref {

std::vector<double> matmul_f32(const float* x, const float* w, std::size_t m, std::size_t n, std::size_t k);
// The same sum over double operands (a composed reference's intermediate arrays).
std::vector<double> matmul_f64(const double* x, const double* w, std::size_t m, std::size_t n, std::size_t k);

// w holds n*row_bytes(type, k) bytes. Throws Error(usage) when k is not a
// whole number of blocks of `type`.
std::vector<double> matmul_quantized(const float* x, std::size_t m, const std::uint8_t* w, GgmlType type,
                                     std::size_t n, std::size_t k);

}  // namespace vktune::ref
