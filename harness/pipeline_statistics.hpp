#pragma once
// What a driver says it made of a pipeline (VK_KHR_pipeline_executable_properties):
// each executable's statistics by the driver's own names ("Register Count",
// "Spilled VGPRs", ...), and the one reading of them the tuner acts on,
// whether the code spills to memory. The names are the driver's; nothing
// here is keyed to a vendor.
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

// The statistics of a pipeline that spills nothing (an empty compute
// shader): the driver's zero for each statistic. Empty where the device
// reports none. Drivers differ here: most report 0 bytes of scratch, but
// NVIDIA's 580 driver reports "Local Memory Size" as 2^36 plus the bytes a
// shader uses (measurements/nvidia-h200/session29), so a spill is read
// against this, never against 0.
std::vector<PipelineStatistic> statistics_of_an_empty_shader(Device& device);

// How far the statistics that count memory spilled to (a name that mentions
// "spill", "scratch" or "local memory", in any case, with or without a
// "stage N: " prefix) stand above the same statistic of `floor`
// (statistics_of_an_empty_shader; 0 where `floor` lacks it), summed: more
// than 0 when the driver reports code that spills or keeps arrays in memory.
// Drivers count registers or bytes; only "none" against "some" is compared
// across them.
double spill_measure(const std::vector<PipelineStatistic>& statistics,
                     const std::vector<PipelineStatistic>& floor = {});

}  // namespace vktune::vk
