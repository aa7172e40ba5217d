#include "tuner/search/transfer.hpp"

#include <algorithm>
#include <cmath>

namespace vktune {

double shape_distance(const kernels::Shape& a, const kernels::Shape& b) {
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d += std::abs(std::log2(static_cast<double>(a[i])) - std::log2(static_cast<double>(b[i])));
  return d;
}

std::vector<kernels::Shape> nearest_shapes(const kernels::Kernel& kernel, const kernels::Shape& target,
                                           const std::vector<kernels::Shape>& tuned, std::size_t count) {
  const auto space = kernel.space_index(target);
  std::vector<kernels::Shape> near;
  for (const auto& s : tuned)
    if (s != target && s.size() == target.size() && kernel.space_index(s) == space) near.push_back(s);
  std::stable_sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
    return shape_distance(a, target) < shape_distance(b, target);
  });
  if (near.size() > count) near.resize(count);
  return near;
}

}  // namespace vktune
