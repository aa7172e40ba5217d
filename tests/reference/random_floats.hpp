#pragma once
// Fresh random operands for the convolution reference tests.
#include <cstddef>
#include <random>
#include <vector>

namespace vktune::ref::testing {

// n floats drawn uniformly from [lo, hi).
inline std::vector<float> random_floats(std::size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& f : v) f = dist(rng);
  return v;
}

}  // namespace vktune::ref::testing
