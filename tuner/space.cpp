#include "tuner/space.hpp"

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

}  // namespace vktune
