#pragma once
// An element-wise reference step, evaluated in double on the CPU:
//
//   {"expression": "y[r][c] = gelu_tanh(x[r][c] + b[c])",
//    "arrays": {"y": ["rows", "n"], "x": ["rows", "n"], "b": ["n"]}}
//
// `arrays` gives each array the expression names (a buffer, or a temporary
// of a composed reference) its extents over the shape, outermost first. For
// every element of the array the left side names, the right side (muparser,
// over the shape's dimensions, the left side's index names and the
// functions of spec_elementwise_functions.hpp) is evaluated with each read
// ARRAY[e1][e2] bounds-checked along every axis: a read outside its array
// stops the reference with one line naming the read and the output element.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// `node` holds "expression" and "arrays". Arrays name buffers (f32, f16,
// i32, u32, i8; not GGUF) or one of `temporaries` (operand index
// buffers.size() + i). What the step may write and read in its place in a
// composed reference is the caller's to check.
ReferenceSpec elementwise_reference_of(const Node& node, const Definition& d, const Scope& dims,
                                       const std::vector<std::string>& temporaries);

// Error(usage) naming the array unless each extent at `shape` is a whole
// number in 1..2^31-1 and their product is count(operand), described as
// describe(operand) ("buffer 'x'").
void check_elementwise_extents(const Definition& d, const ElementwiseSpec& e, const Shape& shape,
                               const std::function<std::uint64_t(int)>& count,
                               const std::function<std::string(int)>& describe);

// What an expression reads of one array: float values (f32, f16 as
// rounded), doubles (a temporary) or raw bytes (i32, u32, i8).
struct ArrayView {
  ElementType type = ElementType::f32;
  const float* floats = nullptr;
  const double* doubles = nullptr;  // set for a temporary; type is then ignored
  const std::uint8_t* bytes = nullptr;
  std::size_t count = 0;
};

// The written array's values, row-major, evaluated in parallel over its
// outermost extent. view(operand) gives each array's contents. Error(usage)
// naming the read and the output element for a read outside its array, or
// the element whose value is not finite.
std::vector<double> elementwise_output(const Definition& d, const ElementwiseSpec& e, const Shape& shape,
                                       const std::function<ArrayView(int)>& view);

}  // namespace vktune::kernels::spec
