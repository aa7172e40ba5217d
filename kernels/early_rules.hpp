#pragma once
// A prefix checker (kernels/prefix_checker.hpp) for a kernel whose legality
// is C++ code: the kernel names some of its legality rules together with the
// parameters each one reads (EarlyRule), and enumeration decides each at the
// shortest prefix of the path that binds them, skipping every config under
// a prefix that breaks one. A config that passes them all is then checked
// whole, as config-by-config enumeration checks it: the pruning rules, then
// constraint_violation.
//
// Every early rule must be implied by constraint_violation: a config it
// rejects, constraint_violation rejects too (a check constraint_violation
// reaches whenever the ones before it pass qualifies). The configs kept are
// then exactly those that checking config by config keeps, in the same
// order; a config an early rule drops is counted under that rule, where a
// pruning rule or an earlier legality rule might have been named config by
// config. tests/kernels/early_rules_test.cpp holds every kernel to it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels {

struct EarlyRule {
  // Every parameter the check reads. A rule reading a parameter that the
  // path's configs do not carry is left to constraint_violation.
  std::vector<std::string> reads;
  // The config's values for `reads` are set; other values are not.
  std::function<Violation(const Config& config)> violation;
};

std::unique_ptr<PrefixChecker> make_early_rules_checker(const Kernel& kernel, const Path& path, const Shape& shape,
                                                        const vk::DeviceInfo& device,
                                                        const std::vector<const PruningRule*>& pruning,
                                                        std::vector<EarlyRule> rules);

}  // namespace vktune::kernels
