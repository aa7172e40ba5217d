#include "tuner/search/transfer.hpp"

#include <algorithm>
#include <cmath>

#include "engine/stale_config.hpp"

namespace vktune {

double shape_distance(const kernels::Shape& a, const kernels::Shape& b) {
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d += std::abs(std::log2(static_cast<double>(a[i])) - std::log2(static_cast<double>(b[i])));
  return d;
}

std::vector<kernels::Shape> nearest_shapes(const kernels::Kernel& kernel, const kernels::Shape& target,
                                           const std::vector<kernels::Shape>& tuned, std::size_t count) {
  const auto space = kernel.space_index(target);
  std::vector<kernels::Shape> near;
  for (const auto& s : tuned)
    if (s != target && s.size() == target.size() && kernel.space_index(s) == space) near.push_back(s);
  std::stable_sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
    return shape_distance(a, target) < shape_distance(b, target);
  });
  if (near.size() > count) near.resize(count);
  return near;
}

TransferSeeds transfer_seeds(const kernels::Kernel& kernel, const kernels::Shape& shape, const TransferSource& source) {
  TransferSeeds seeds;
  const auto devices = source.devices();
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const auto device = devices[d];
    const bool self = d == 0;
    const auto tuned = source.tuned_shapes(device);
    // The same shape measured on a sibling device is the nearest of all.
    std::vector<kernels::Shape> picks = nearest_shapes(kernel, shape, tuned, self ? 2 : 1);
    if (!self && std::find(tuned.begin(), tuned.end(), shape) != tuned.end()) picks.insert(picks.begin(), shape);
    for (const auto& s : picks) {
      std::size_t taken = 0;
      // Stored before the kernel gained a parameter: completed where a path
      // fixes it, else left out.
      auto take = [&](const kernels::Config& stored) {
        if (auto current = update_config(kernel, s, stored).config) {
          seeds.configs.push_back(std::move(*current));
          ++taken;
        }
      };
      if (auto w = source.winner(device, s)) take(*w);
      source.fastest(device, s, [&](const kernels::Config& config) {
        if (taken >= kTransferTop + 1) return false;
        take(config);
        return true;
      });
      seeds.from.push_back(kernels::shape_to_string(s) + (self ? "" : " (device #" + std::to_string(device) + ")"));
    }
  }
  return seeds;
}

}  // namespace vktune
