#pragma once
// Enumerating a kernel's parameter space for one shape and device, with the
// kernel's constraints applied before anything is compiled.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

struct SpaceEnumeration {
  std::string space_name;
  std::vector<kernels::Config> valid;  // in lexicographic parameter order
  std::size_t total = 0;               // size of the cartesian product
  std::size_t filtered = 0;            // rejected by constraints
  std::map<std::string, std::size_t> filter_reasons;  // first words of each reason -> count
};

SpaceEnumeration enumerate_space(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                 const vk::DeviceInfo& device);

// The configs of `valid` whose parameters named in `only` take one of the
// listed values (the tune command's --only). Throws Error(usage) naming a
// parameter that the shape's space lacks or a value it never takes.
std::vector<kernels::Config> select_only(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                         const std::vector<kernels::Config>& valid,
                                         const std::map<std::string, std::vector<int>>& only);

}  // namespace vktune
