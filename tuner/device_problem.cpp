#include "tuner/device_problem.hpp"

#include <algorithm>

namespace vktune {

std::uint32_t cold_cache_copies(std::uint64_t weight_bytes, std::uint64_t device_bytes, std::uint64_t target_bytes,
                                std::uint32_t max_copies) {
  if (weight_bytes == 0) return 1;
  std::uint64_t copies = (target_bytes + weight_bytes - 1) / weight_bytes;
  copies = std::min<std::uint64_t>(copies, max_copies);
  if (device_bytes > 0) copies = std::min<std::uint64_t>(copies, std::max<std::uint64_t>(1, device_bytes / 4 / weight_bytes));
  // At least two copies, so consecutive dispatches never read the same weights.
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(copies, 2));
}

DeviceProblem::DeviceProblem(vk::Device& device, const kernels::Problem& problem, std::uint32_t weight_copies)
    : output_index_(problem.output_index), copies_(std::max(1u, weight_copies)) {
  buffers_.resize(problem.buffers.size());
  for (std::size_t b = 0; b < problem.buffers.size(); ++b) {
    const auto& host = problem.buffers[b];
    const std::uint32_t n = host.is_weights ? copies_ : 1;
    if (host.is_weights) weight_bytes_ += host.bytes.size();
    for (std::uint32_t c = 0; c < n; ++c) {
      buffers_[b].emplace_back(device, std::max<std::size_t>(host.bytes.size(), 4));
      if (!host.is_output) buffers_[b].back().upload(host.bytes);
    }
  }
}

std::vector<const vk::Buffer*> DeviceProblem::bindings(std::uint32_t copy) const {
  std::vector<const vk::Buffer*> list;
  for (const auto& copies : buffers_) list.push_back(&copies[copy % copies.size()]);
  return list;
}

}  // namespace vktune
