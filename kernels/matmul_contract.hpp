#pragma once
// The launch facts every matrix product (M,N,K: y[M×N] = x[M×K] · W[N×K]^T)
// shares, dense or quantized: which shapes its decode (matrix-vector) and
// prefill (tiled) spaces serve, and its three buffers.
#include <cstdint>
#include <vector>

#include "kernels/launch_contract.hpp"

namespace vktune::kernels::matmul {

// The most rows of x a decode space serves: the matrix-vector templates keep
// up to eight rows of x per pass (COLS_PER_PASS).
constexpr std::uint32_t kMaxDecodeM = 8;

inline ShapeClass decode_shapes() { return {DimBound{0, 1, kMaxDecodeM}}; }
inline ShapeClass prefill_shapes() { return {DimBound{0, kMaxDecodeM + 1}}; }

// x: M×K values of `x_bytes` each; W: the `weights` rule over N and K; y: M×N
// values of `y_bytes` each (floats, or the halves of fp16 activations).
inline std::vector<Binding> bindings(std::uint64_t x_bytes, SizeRule weights, std::uint64_t y_bytes = 4) {
  return {{"x", BindingRole::input, size_rule(x_bytes, {0, 2})},
          {"W", BindingRole::weights, std::move(weights)},
          {"y", BindingRole::output, size_rule(y_bytes, {0, 1})}};
}

}  // namespace vktune::kernels::matmul
