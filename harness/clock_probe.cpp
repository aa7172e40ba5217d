#include "harness/clock_probe.hpp"

#include "harness/commands.hpp"
#include "harness/query_pool.hpp"
#include "harness/timing_stats.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

namespace {
PipelineDesc probe_desc(std::uint32_t local_size) {
  PipelineDesc desc;
  desc.label = "the clock probe";
  desc.storage_buffers = 1;
  desc.push_constant_bytes = sizeof(float);
  desc.local_size = {local_size, 1, 1};
  desc.max_descriptor_sets = 1;
  return desc;
}
}  // namespace

ClockProbe::ClockProbe(Device& device, std::span<const std::uint32_t> spirv, std::uint32_t local_size)
    : device_(device),
      sink_(device, 16),
      pipeline_(device, spirv, probe_desc(local_size)),
      queries_(std::make_unique<QueryPool>(device, 2)) {
  const Buffer* bindings[] = {&sink_};
  set_ = pipeline_.make_descriptor_set(bindings);
}

ClockProbe::~ClockProbe() = default;

double ClockProbe::sample_ns() {
  const float seed = 0.5f;
  CommandBuffer cmd(device_);
  cmd.begin();
  vkCmdResetQueryPool(cmd.handle(), queries_->handle(), 0, 2);
  vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_->handle(), 0);
  pipeline_.record_dispatch(cmd.handle(), set_, {1, 1, 1}, {reinterpret_cast<const std::uint8_t*>(&seed), sizeof seed});
  vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_->handle(), 1);
  cmd.end();
  cmd.submit_and_wait(kDefaultTimeout);
  std::uint64_t stamps[2] = {};
  check(vkGetQueryPoolResults(device_.handle(), queries_->handle(), 0, 2, sizeof stamps, stamps, sizeof(std::uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  const auto& info = device_.info();
  return ticks_to_ns(timestamp_delta(stamps[0], stamps[1], info.timestamp_valid_bits), info.timestamp_period_ns);
}

}  // namespace vktune::vk
