#include "harness/phase_timer.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "harness/query_pool.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

PhaseTiming time_phases(Device& device, const RecordPhases& record, std::uint32_t phases, int samples,
                        std::chrono::nanoseconds timeout) {
  const auto& info = device.info();
  if (info.timestamp_valid_bits == 0 || info.timestamp_period_ns <= 0) {
    throw Error(ErrorKind::device_limit, info.name + "'s compute queue does not support timestamp queries");
  }
  const std::uint32_t per_sample = phases + 1;
  const auto n = static_cast<std::uint32_t>(std::max(samples, 1));
  QueryPool queries(device, per_sample * n);
  CommandBuffer cmd(device);
  cmd.begin();
  vkCmdResetQueryPool(cmd.handle(), queries.handle(), 0, per_sample * n);
  for (std::uint32_t s = 0; s < n; ++s) {
    std::uint32_t next = s * per_sample;
    const std::uint32_t end = next + per_sample;
    auto stamp = [&](VkCommandBuffer c) {
      if (next == end) throw Error(ErrorKind::internal, "a workload marked more phases than it declared");
      vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries.handle(), next++);
    };
    if (s > 0) compute_barrier(cmd.handle());
    stamp(cmd.handle());
    record(cmd.handle(), stamp);
    if (next != end) {
      throw Error(ErrorKind::internal, "a workload marked " + std::to_string(next - s * per_sample - 1) + " of its " +
                                           std::to_string(phases) + " phases");
    }
  }
  cmd.end();
  cmd.submit_and_wait(timeout);

  std::vector<std::uint64_t> stamps(per_sample * n);
  check(
      vkGetQueryPoolResults(device.handle(), queries.handle(), 0, per_sample * n, stamps.size() * sizeof(std::uint64_t),
                            stamps.data(), sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
      "vkGetQueryPoolResults");
  auto ns = [&](std::uint64_t a, std::uint64_t b) {
    return ticks_to_ns(timestamp_delta(a, b, info.timestamp_valid_bits), info.timestamp_period_ns);
  };
  PhaseTiming timing;
  std::vector<double> totals;
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto* st = stamps.data() + s * per_sample;
    totals.push_back(ns(st[0], st[phases]));
  }
  timing.total_ns = compute_stats(totals);
  for (std::uint32_t p = 0; p < phases; ++p) {
    std::vector<double> lengths;
    for (std::uint32_t s = 0; s < n; ++s) {
      const auto* st = stamps.data() + s * per_sample;
      lengths.push_back(ns(st[p], st[p + 1]));
    }
    timing.median_ns.push_back(compute_stats(lengths).median);
  }
  return timing;
}

}  // namespace vktune::vk
