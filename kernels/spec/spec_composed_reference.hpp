#pragma once
// A reference computed on the CPU in steps, each a reference op
// (spec_reference.hpp) or an element-wise expression (spec_elementwise.hpp),
// over the spec's buffers and temporaries of its own, kept in double:
//
//   "reference": {"steps": [{"op": "matmul", "x": "x", "w": "w", "y": "t", "m": "m", "n": "n", "k": "k"},
//                           {"expression": "y[i] = gelu_tanh(t[i])", "arrays": {"y": ["m * n"], "t": ["m * n"]}}],
//                 "temporaries": {"t": "m * n"}}
//
// Every step but the last writes a temporary; the last writes the output
// buffer. A step reads inputs, weights and temporaries an earlier step
// wrote, never the output, a scratch buffer or what it writes itself. A lone
// {"expression", "arrays"} is such a reference of one step.
#include <vector>

#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// `node` holds "steps" (and "temporaries"), or "expression" and "arrays".
ReferenceSpec composed_reference_of(const Node& node, const Definition& d, const Scope& dims);

// Error(usage) naming the field unless every temporary's size at `shape` is
// a whole number in 1..2^31-1 and every step's operands and arrays agree
// with the sizes of what they name.
void check_composed_sizes(const Definition& d, const Shape& shape);

// The output, step by step (d.reference is composed).
std::vector<double> composed_output(const Definition& d, const Shape& shape,
                                    const std::vector<std::vector<float>>& values,
                                    const std::vector<HostBuffer>& buffers);

}  // namespace vktune::kernels::spec
