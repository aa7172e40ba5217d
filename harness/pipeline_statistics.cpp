#include "harness/pipeline_statistics.hpp"

#include <algorithm>

#include "common/lowercase.hpp"
#include "harness/compiler.hpp"
#include "harness/device.hpp"
#include "harness/pipeline.hpp"

namespace vktune::vk {
namespace {

double value_of(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? 1 : 0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return static_cast<double>(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return static_cast<double>(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return s.value.f64;
    default: return 0;
  }
}

// A driver's string field (fixed-size, NUL-terminated by the specification;
// bounded here all the same).
template <std::size_t N>
std::string text_of(const char (&field)[N]) {
  return std::string(field, std::find(field, field + N, '\0'));
}

}  // namespace

std::vector<PipelineStatistic> read_pipeline_statistics(const Device& device, VkPipeline pipeline) {
  std::vector<PipelineStatistic> out;
  if (!device.info().features.pipeline_executable_info || !vkGetPipelineExecutablePropertiesKHR ||
      !vkGetPipelineExecutableStatisticsKHR) {
    return out;
  }
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  std::uint32_t count = 0;
  if (vkGetPipelineExecutablePropertiesKHR(device.handle(), &info, &count, nullptr) != VK_SUCCESS) return out;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (vkGetPipelineExecutablePropertiesKHR(device.handle(), &info, &count, executables.data()) < 0) return out;
  executables.resize(count);
  for (std::uint32_t e = 0; e < executables.size(); ++e) {
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline;
    which.executableIndex = e;
    std::uint32_t n = 0;
    if (vkGetPipelineExecutableStatisticsKHR(device.handle(), &which, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (vkGetPipelineExecutableStatisticsKHR(device.handle(), &which, &n, stats.data()) < 0) continue;
    stats.resize(n);
    // A compute pipeline has one executable on every driver seen; the
    // executable's name is kept only where there are several.
    const std::string prefix = executables.size() > 1 ? text_of(executables[e].name) + ": " : std::string();
    for (const auto& s : stats) out.push_back({prefix + text_of(s.name), value_of(s)});
  }
  return out;
}

std::vector<PipelineStatistic> statistics_of_an_empty_shader(Device& device) {
  if (!device.info().features.pipeline_executable_info) return {};
  const auto spirv = compile_compute_shader({"empty.comp", "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n"},
                                            MapIncludes({}), {});
  PipelineDesc desc;
  desc.label = "the empty shader the driver's statistics are read against";
  desc.capture_statistics = true;
  return ComputePipeline(device, spirv, desc).statistics();
}

double spill_measure(const std::vector<PipelineStatistic>& statistics, const std::vector<PipelineStatistic>& floor) {
  // The statistic's own name, without the executable or stage it belongs to.
  const auto bare = [](const std::string& name) {
    const auto colon = name.rfind(": ");
    return colon == std::string::npos ? name : name.substr(colon + 2);
  };
  double sum = 0;
  for (const auto& s : statistics) {
    const auto name = lowercase(bare(s.name));
    if (name.find("spill") == std::string::npos && name.find("scratch") == std::string::npos &&
        name.find("local memory") == std::string::npos) {
      continue;
    }
    double zero = 0;
    for (const auto& f : floor)
      if (lowercase(bare(f.name)) == name) zero = f.value;
    sum += std::max(0.0, s.value - zero);
  }
  return sum;
}

}  // namespace vktune::vk
