#pragma once
// SpecKernel's prefix checker (kernels/prefix_checker.hpp): a spec's rules
// are expressions that say which parameters they read, so each rule, and
// each stage's launch limits, is decided at the shortest prefix of the
// path's parameters that binds everything it reads.
#include <memory>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels::spec {

class SpecKernel;

std::unique_ptr<PrefixChecker> make_prefix_checker(const SpecKernel& kernel, const Path& path, const Shape& shape,
                                                   const vk::DeviceInfo& device,
                                                   const std::vector<const PruningRule*>& pruning);

}  // namespace vktune::kernels::spec
