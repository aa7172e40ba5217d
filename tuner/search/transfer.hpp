#pragma once
// Transfer between shapes: what was learned at one shape of a kernel is the
// best first guess at a near one. Shapes are near when they share the
// kernel's space (the same templates and parameters) and their dimensions
// differ little in ratio.
#include <optional>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

// log2 distance between two shapes of the same kernel: sum over dimensions
// of |log2(a/b)|.
double shape_distance(const kernels::Shape& a, const kernels::Shape& b);

// Of `tuned`, the shapes in `target`'s space, nearest first (ties by
// order); at most `count`, and never `target` itself.
std::vector<kernels::Shape> nearest_shapes(const kernels::Kernel& kernel, const kernels::Shape& target,
                                           const std::vector<kernels::Shape>& tuned, std::size_t count);

// How many of a near shape's best configs a search evaluates first.
inline constexpr std::size_t kTransferTop = 3;

}  // namespace vktune
