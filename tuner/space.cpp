#include "tuner/space.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace vktune {

SpaceEnumeration enumerate_space(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                 const vk::DeviceInfo& device) {
  const auto spaces = kernel.spaces();
  const auto& space = spaces.at(kernel.space_index(shape));
  SpaceEnumeration result;
  result.space_name = space.name;
  const auto& params = space.parameters;
  // Odometer over the candidate lists.
  std::vector<std::size_t> position(params.size(), 0);
  for (const auto& p : params)
    if (p.values.empty()) return result;
  while (true) {
    kernels::Config config;
    for (std::size_t i = 0; i < params.size(); ++i) config[params[i].name] = params[i].values[position[i]];
    ++result.total;
    auto why = kernel.constraint_violation(config, shape, device);
    if (why.empty()) {
      result.valid.push_back(std::move(config));
    } else {
      ++result.filtered;
      ++result.filter_reasons[why.substr(0, why.find_first_of(":(0123456789"))];
    }
    std::size_t i = params.size();
    while (i > 0) {
      --i;
      if (++position[i] < params[i].values.size()) break;
      position[i] = 0;
      if (i == 0) return result;
    }
    if (params.empty()) return result;
  }
}

std::vector<kernels::Config> select_only(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                         const std::vector<kernels::Config>& valid,
                                         const std::map<std::string, std::vector<int>>& only) {
  const auto spaces = kernel.spaces();
  const auto& space = spaces.at(kernel.space_index(shape));
  for (const auto& [name, values] : only) {
    const auto p = std::find_if(space.parameters.begin(), space.parameters.end(),
                                [&](const kernels::Parameter& q) { return q.name == name; });
    if (p == space.parameters.end()) {
      std::string names;
      for (const auto& q : space.parameters) names += (names.empty() ? "" : ", ") + q.name;
      throw Error(ErrorKind::usage, "--only: " + kernel.name() + "'s " + space.name + " space (shape " +
                                        kernels::shape_to_string(shape) + ") has no parameter " + name +
                                        "; it has " + names);
    }
    for (int v : values) {
      if (std::find(p->values.begin(), p->values.end(), v) == p->values.end()) {
        throw Error(ErrorKind::usage, "--only: " + std::to_string(v) + " is not a candidate value of " + name);
      }
    }
  }
  std::vector<kernels::Config> kept;
  for (const auto& config : valid) {
    const bool keep = std::all_of(only.begin(), only.end(), [&](const auto& entry) {
      return std::find(entry.second.begin(), entry.second.end(), config.at(entry.first)) != entry.second.end();
    });
    if (keep) kept.push_back(config);
  }
  return kept;
}

}  // namespace vktune
