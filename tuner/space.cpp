#include "tuner/space.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace vktune {

SpaceScope parse_space_scope(const std::string& text) {
  if (text == "pruned") return SpaceScope::pruned;
  if (text == "full") return SpaceScope::full;
  throw Error(ErrorKind::usage, "--space must be pruned or full, not '" + text + "'");
}

const char* to_string(SpaceScope scope) { return scope == SpaceScope::full ? "full" : "pruned"; }

std::vector<const kernels::PruningRule*> active_pruning(const kernels::Space& space, const vk::DeviceInfo& device,
                                                        SpaceScope scope) {
  std::vector<const kernels::PruningRule*> rules;
  if (scope == SpaceScope::full) return rules;
  for (const auto& rule : space.pruning) {
    if (rule.measured_on.matches(device)) rules.push_back(&rule);
  }
  return rules;
}

SpaceEnumeration enumerate_space(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                 const vk::DeviceInfo& device, SpaceScope scope) {
  const auto& spaces = kernel.spaces();
  const auto& space = spaces.at(kernel.space_index(shape));
  const auto rules = active_pruning(space, device, scope);
  const kernels::Config shape_values = space.shape_values ? space.shape_values(shape) : kernels::Config{};
  SpaceEnumeration result;
  result.space_name = space.name;
  for (const auto& path : space.effective_paths()) {
    PathEnumeration counts{path.name, 1, 0};
    const auto& params = path.parameters;
    for (const auto& p : params) counts.cartesian *= p.values.size();
    const std::size_t path_index = result.paths.size();
    result.total += counts.cartesian;
    // Odometer over the path's candidate lists, on top of its pinned values
    // and the shape's.
    kernels::Config config = path.pinned;
    for (const auto& [name, value] : shape_values) config[name] = value;
    std::vector<std::size_t> position(params.size(), 0);
    for (std::size_t done = 0; done < counts.cartesian; ++done) {
      for (std::size_t i = 0; i < params.size(); ++i) config[params[i].name] = params[i].values[position[i]];
      const auto pruned_by = std::find_if(rules.begin(), rules.end(),
                                          [&](const kernels::PruningRule* r) { return r->prunes(config, shape); });
      if (pruned_by != rules.end()) {
        ++result.filtered;
        ++result.pruned_by[(*pruned_by)->name];
      } else if (auto why = kernel.constraint_violation(config, shape, device); !why.empty()) {
        ++result.filtered;
        ++result.filter_reasons[why.substr(0, why.find_first_of(":(0123456789"))];
      } else {
        result.valid.push_back(config);
        result.path_of.push_back(path_index);
        ++counts.valid;
      }
      for (std::size_t i = params.size(); i > 0; --i) {
        if (++position[i - 1] < params[i - 1].values.size()) break;
        position[i - 1] = 0;
      }
    }
    result.paths.push_back(std::move(counts));
  }
  return result;
}

std::vector<kernels::Config> select_only(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                         const std::vector<kernels::Config>& valid,
                                         const std::map<std::string, std::vector<int>>& only) {
  const auto& spaces = kernel.spaces();
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
