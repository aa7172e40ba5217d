#pragma once
// Comparing a kernel's output with the double-precision reference.
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

struct Validation {
  bool passed = false;
  double rel_l2 = 0;   // ||y - ref|| / ||ref||
  double max_abs = 0;  // max |y - ref|
  double max_rel = 0;  // max |y - ref| / max |ref|
  std::size_t non_finite = 0;  // NaN or Inf outputs (poisoned NaN left unwritten counts here)
  bool out_of_bounds = false;  // wrote into a guard band (DeviceProblem::check_guards)
  std::string reason;          // why it failed, naming the first bad element or the touched band
};

Validation compare_output(const std::vector<float>& got, const std::vector<double>& expected,
                          const kernels::Tolerance& tolerance);

}  // namespace vktune
