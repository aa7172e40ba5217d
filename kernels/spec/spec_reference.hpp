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
//
// The same ops serve as the steps of a composed reference
// (spec_composed_reference.hpp), whose operands may also name its
// temporaries, held in double.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// {"op": ...} as the whole reference: its y is the output buffer.
ReferenceSpec reference_of(const Node& node, const Definition& d, const Scope& dims);
// The same as a step of a composed reference: operands may also name one of
// `temporaries` (operand index buffers.size() + i), and what the step writes
// is the composed reference's to check.
ReferenceSpec op_reference_of(const Node& node, const Definition& d, const Scope& dims,
                              const std::vector<std::string>& temporaries, bool step);

// Error(usage) naming the reference field when an operand's size at `shape`
// disagrees with its buffer's.
void check_reference_sizes(const Definition& d, const Shape& shape);
// The same for one op `r`, whose operand i holds array_count(i) values and
// is named describe(i) ("buffer 'x'") in messages.
void check_op_sizes(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                    const std::function<std::uint64_t(int)>& array_count,
                    const std::function<std::string(int)>& describe);

// The expected output, from the buffers' contents (float values for float
// buffers, raw bytes for GGUF ones), in binding order.
std::vector<double> reference_output(const Definition& d, const Shape& shape,
                                     const std::vector<std::vector<float>>& values,
                                     const std::vector<HostBuffer>& buffers);
// One op's output from its operands' values (operand index -> values): float
// buffers, or doubles (a composed reference's arrays). GGUF weights and rope's
// positions are read from `buffers` either way.
std::vector<double> op_output_from_floats(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                                          const std::function<std::span<const float>(int)>& values,
                                          const std::vector<HostBuffer>& buffers);
std::vector<double> op_output_from_doubles(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                                           const std::function<std::span<const double>(int)>& values,
                                           const std::vector<HostBuffer>& buffers);

}  // namespace vktune::kernels::spec
