#pragma once
// Which parameters mattered at a shape: for each parameter, the share of the
// variance of log time among the measured variants that its value explains
// (between-value variance over total variance, one parameter at a time), and
// its value in the fastest variant.
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

struct ParameterImportance {
  std::string name;
  double share = 0;  // 0..1
  int best_value = 0;
};

// `timed`: configs with their times (ns). Parameters that take one value
// among them are left out; the rest come most important first.
std::vector<ParameterImportance> parameter_importance(const std::vector<std::pair<kernels::Config, double>>& timed);

}  // namespace vktune
