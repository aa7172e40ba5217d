#pragma once
// The matrix-vector products with 8-bit activations (the X_QUANT=1 variants
// of the quantized products, templates/include/x_q8.glsl) on the CPU, so that
// a chain of them can be checked against a reference with the same
// approximation rather than against exact activations: over many layers of a
// model the approximation's own error grows far past a single product's.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/gguf_types.hpp"

namespace vktune::ref {

// x as the shaders quantize it: each run of 32 values becomes codes
// round(x * (1/max|x|) * 127) times dx = max|x| * (1/127), in fp32 as the
// shader computes them (a run of zeros stays zero). k is a multiple of 32.
std::vector<float> quantize_activations_q8(const float* x, std::size_t k);

// y = x · Wᵀ (m rows of x, n quantized rows of W, as matmul_quantized) as the
// integer-dot templates compute it: every weight term, the K-quants' mins
// too, against x quantized as above.
std::vector<double> matmul_quantized_q8_activations(const float* x, std::size_t m, const std::uint8_t* w, GgmlType type,
                                                    std::size_t n, std::size_t k);

}  // namespace vktune::ref
