#include "engine/stale_config.hpp"

#include <algorithm>

namespace vktune {
namespace {

bool offers(const kernels::Parameter& p, int value) {
  return std::find(p.values.begin(), p.values.end(), value) != p.values.end();
}

}  // namespace

ConfigUpdate update_config(const kernels::Kernel& kernel, const kernels::Shape& shape, const kernels::Config& config) {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  for (const auto& [name, value] : config) {
    static_cast<void>(value);
    const bool known = std::any_of(space.parameters.begin(), space.parameters.end(),
                                   [&](const kernels::Parameter& q) { return q.name == name; });
    if (known) continue;
    // A parameter of an earlier vocabulary: the kernel may know its config of today.
    if (auto now = kernel.from_earlier_vocabulary(config, shape)) {
      auto update = update_config(kernel, shape, *now);
      if (update.config) {
        update.note = "translated from " + kernel.name() + "'s earlier parameters to " + kernels::config_to_json(*now);
      }
      return update;
    }
    break;
  }
  for (const auto& [name, value] : config) {
    const auto p = std::find_if(space.parameters.begin(), space.parameters.end(),
                                [&](const kernels::Parameter& q) { return q.name == name; });
    if (p == space.parameters.end()) {
      return {std::nullopt, "stale: " + kernel.name() + "'s " + space.name + " space has no parameter " + name};
    }
    if (!offers(*p, value)) {
      return {std::nullopt, "stale: " + name + "=" + std::to_string(value) + " is no longer a candidate value"};
    }
  }
  std::vector<std::string> missing;
  for (const auto& p : space.parameters) {
    if (!config.count(p.name)) missing.push_back(p.name);
  }
  if (missing.empty()) return {config, ""};
  const kernels::Config by_shape = space.shape_values ? space.shape_values(shape) : kernels::Config{};
  for (const auto& path : space.effective_paths()) {
    // The path must agree with what the config has: its pinned values, and
    // its varied parameters within the values it takes.
    bool agrees = true;
    for (const auto& [name, value] : path.pinned) {
      if (const auto it = config.find(name); it != config.end() && it->second != value) agrees = false;
    }
    for (const auto& p : path.parameters) {
      if (const auto it = config.find(p.name); it != config.end() && !offers(p, it->second)) agrees = false;
    }
    if (!agrees) continue;
    auto completed = config;
    std::string filled;
    for (const auto& name : missing) {
      const auto pinned = path.pinned.find(name);
      const auto set = by_shape.find(name);
      if (pinned != path.pinned.end()) {
        completed[name] = pinned->second;
      } else if (set != by_shape.end()) {
        completed[name] = set->second;
      } else {
        agrees = false;  // the path varies it: no value reproduces the old shader
        break;
      }
      filled += (filled.empty() ? "" : " ") + name + "=" + std::to_string(completed[name]);
    }
    if (agrees) return {completed, "completed with " + filled + " (the " + path.name + " path's values)"};
  }
  std::string names;
  for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
  return {std::nullopt, "stale: lacks " + names + ", which no path of " + kernel.name() + "'s " + space.name +
                            " space fixes"};
}

}  // namespace vktune
