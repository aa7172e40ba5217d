#include "harness/timer.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

namespace {

class QueryPool {
 public:
  QueryPool(Device& device, std::uint32_t count) : device_(&device) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = count;
    check(vkCreateQueryPool(device_->handle(), &info, nullptr, &pool_), "vkCreateQueryPool");
  }
  // After a timeout the abandoned work may still write timestamps: leak.
  ~QueryPool() {
    if (device_->usable()) vkDestroyQueryPool(device_->handle(), pool_, nullptr);
  }
  QueryPool(const QueryPool&) = delete;
  QueryPool& operator=(const QueryPool&) = delete;
  VkQueryPool handle() const { return pool_; }

 private:
  Device* device_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

// One sample: K dispatches between two timestamps. Returns the window in ns.
double run_sample(Device& device, QueryPool& queries, const RecordDispatch& record, std::uint64_t& next_dispatch,
                  std::uint32_t k, std::chrono::nanoseconds timeout) {
  CommandBuffer cmd(device);
  cmd.begin();
  vkCmdResetQueryPool(cmd.handle(), queries.handle(), 0, 2);
  vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries.handle(), 0);
  for (std::uint32_t i = 0; i < k; ++i) {
    if (i > 0) compute_barrier(cmd.handle());
    record(cmd.handle(), next_dispatch++);
  }
  vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries.handle(), 1);
  cmd.end();
  cmd.submit_and_wait(timeout);

  std::uint64_t stamps[2] = {0, 0};
  check(vkGetQueryPoolResults(device.handle(), queries.handle(), 0, 2, sizeof stamps, stamps, sizeof stamps[0],
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  const auto& info = device.info();
  return ticks_to_ns(timestamp_delta(stamps[0], stamps[1], info.timestamp_valid_bits), info.timestamp_period_ns);
}

}  // namespace

TimingResult time_dispatches(Device& device, const RecordDispatch& record, const TimerOptions& options) {
  const auto& info = device.info();
  if (info.timestamp_valid_bits == 0 || info.timestamp_period_ns <= 0) {
    throw Error(ErrorKind::device_limit, info.name + "'s compute queue does not support timestamp queries");
  }
  QueryPool queries(device, 2);
  std::uint64_t next_dispatch = 0;

  std::uint32_t k = options.dispatches_per_sample;
  if (k == 0) {
    // Probe with one dispatch (after one untimed warm-up) to size the window.
    run_sample(device, queries, record, next_dispatch, 1, options.timeout);
    const double one = std::max(1.0, run_sample(device, queries, record, next_dispatch, 1, options.timeout));
    const double wanted = std::ceil(options.min_window_ns / one);
    k = static_cast<std::uint32_t>(std::clamp(wanted, 1.0, static_cast<double>(options.max_dispatches_per_sample)));
  }
  for (int i = 0; i < options.warmup_samples; ++i) run_sample(device, queries, record, next_dispatch, k, options.timeout);

  TimingResult result;
  result.dispatches_per_sample = k;
  for (int i = 0; i < std::max(1, options.samples); ++i) {
    const double window = run_sample(device, queries, record, next_dispatch, k, options.timeout);
    result.samples_ns.push_back(window / k);
  }
  result.per_dispatch_ns = compute_stats(result.samples_ns);
  return result;
}

}  // namespace vktune::vk
