#pragma once
// A spec's reference: a named op of vktune's reference library (reference/)
// with its operands mapped to the spec's buffers and its sizes given as
// expressions over the shape.
//
//   softmax    x, y; n (row length)                      ref::softmax
//   rmsnorm    x, [weight], y; n; eps                    ref::rmsnorm
//   layernorm  x, [weight], [bias], y; n; eps            ref::layernorm
//   matmul     x (m×k), w (n rows of k, f32/f16/GGUF), y (m×n); m, n, k
//   add        a, b, y                                   ref::add
//   swiglu     a (gate), b (up), y                       ref::swiglu
//   mul        a, b, y                                   ref::mul
//   gelu       x, y (tanh form); gelu_erf (exact)        ref::gelu_tanh, ref::gelu_erf
//   depthwise_conv2d  x (NHWC), weight (3×3×C), bias (C), y; batch, height,
//              width, channels, stride; relu6              ref::depthwise_conv2d_3x3
#include <vector>

#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

ReferenceSpec reference_of(const Node& node, const Definition& d, const Scope& dims);

// Error(usage) naming the reference field when an operand's size at `shape`
// disagrees with its buffer's.
void check_reference_sizes(const Definition& d, const Shape& shape);

// The expected output, from the buffers' contents (float values for float
// buffers, raw bytes for GGUF ones), in binding order.
std::vector<double> reference_output(const Definition& d, const Shape& shape,
                                     const std::vector<std::vector<float>>& values,
                                     const std::vector<HostBuffer>& buffers);

}  // namespace vktune::kernels::spec
