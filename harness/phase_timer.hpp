#pragma once
// Where the time of one recorded workload goes, phase by phase: the workload
// marks its phase boundaries, a bottom-of-pipe timestamp is written at each
// (when everything before it has finished), and phase i lasts from the mark
// before it (or the start) to its own. Samples run back to back in one
// submission. The caller warms the GPU's clocks first (time_dispatches of
// the same workload does): this measures, it does not warm up.
#include <volk.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "harness/commands.hpp"
#include "harness/device.hpp"
#include "harness/timing_stats.hpp"

namespace vktune::vk {

// Records the workload into cmd, calling mark(cmd) at the end of each phase
// (exactly `phases` times).
using RecordPhases = std::function<void(VkCommandBuffer cmd, const std::function<void(VkCommandBuffer)>& mark)>;

struct PhaseTiming {
  std::vector<double> median_ns;  // per phase, over the samples
  TimingStats total_ns;           // start to the last mark
};

// Throws Error(device_limit) when the queue has no timestamps, Error(internal)
// when the workload marks another number of phases.
PhaseTiming time_phases(Device& device, const RecordPhases& record, std::uint32_t phases, int samples,
                        std::chrono::nanoseconds timeout = kDefaultTimeout);

}  // namespace vktune::vk
