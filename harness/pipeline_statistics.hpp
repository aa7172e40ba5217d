#pragma once
// What a driver says it made of a pipeline (VK_KHR_pipeline_executable_properties):
// each executable's statistics by the driver's own names ("Register Count",
// "Spilled VGPRs", ...), and the one reading of them the tuner acts on,
// whether the code spilled. The names are the driver's; nothing here is
// keyed to a vendor.
#include <volk.h>

#include <string>
#include <vector>

namespace vktune::vk {

class Device;

struct PipelineStatistic {
  std::string name;  // "<executable>: <statistic>" where a pipeline has several executables
  double value = 0;  // booleans as 0/1
  bool operator==(const PipelineStatistic&) const = default;
};

// Every statistic of every executable of `pipeline`, which must have been
// created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on a device
// with pipelineExecutableInfo enabled; empty where the driver gives none.
std::vector<PipelineStatistic> read_pipeline_statistics(const Device& device, VkPipeline pipeline);

// The sum of the statistics that count spilled registers or scratch memory
// (a name that mentions "spill" or "scratch", in any case): more than 0 when
// the driver reports code that spills. Drivers name them differently
// (registers or bytes); only "none" against "some" is compared across them.
double spill_measure(const std::vector<PipelineStatistic>& statistics);

}  // namespace vktune::vk
