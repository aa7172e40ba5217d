#include "tuner/device_baseline.hpp"

#include <cstddef>
#include <limits>

#include "tuner/space.hpp"

namespace vktune {
namespace {

// Parameters whose values differ; a name only one config has counts once.
std::size_t changed_parameters(const kernels::Config& a, const kernels::Config& b) {
  std::size_t changed = 0;
  for (const auto& [name, value] : a) {
    const auto it = b.find(name);
    changed += it == b.end() || it->second != value;
  }
  for (const auto& [name, value] : b) changed += a.find(name) == a.end();
  return changed;
}

}  // namespace

kernels::Config device_baseline(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                const vk::DeviceInfo& device) {
  auto baseline = kernel.baseline(shape);
  if (kernel.constraint_violation(baseline, shape, device).empty()) return baseline;
  // Legality only: a baseline is never pruned away.
  const auto space = enumerate_space(kernel, shape, device, SpaceScope::full);
  std::size_t best = std::numeric_limits<std::size_t>::max(), best_changed = best;
  for (std::size_t i = 0; i < space.valid.size(); ++i) {
    const auto changed = changed_parameters(baseline, space.valid[i]);
    if (changed < best_changed) best = i, best_changed = changed;
  }
  return best_changed == std::numeric_limits<std::size_t>::max() ? baseline : space.valid[best];
}

}  // namespace vktune
