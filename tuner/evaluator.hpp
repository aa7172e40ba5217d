#pragma once
// Running one compiled variant on a device: create its pipeline, validate it
// against the reference with a poisoned output, and time it.
#include <chrono>
#include <memory>
#include <vector>

#include "harness/device.hpp"
#include "harness/pipeline.hpp"
#include "harness/timer.hpp"
#include "kernels/kernel.hpp"
#include "tuner/device_problem.hpp"
#include "tuner/validation.hpp"
#include "tuner/variant.hpp"

namespace vktune {

// NaN bit pattern written over outputs before a validation run.
inline constexpr std::uint32_t kPoison = 0x7fc00000u;

class VariantRunner {
 public:
  // Creates the pipeline for a kernel with `buffer_count` bindings and
  // `shape_dims` push-constant words (the kernel conventions); throws
  // Error(device_limit) or Error(pipeline).
  VariantRunner(vk::Device& device, const CompiledVariant& variant, std::uint32_t buffer_count,
                std::uint32_t shape_dims, std::uint32_t max_descriptor_sets = 80);

  // Poisons the output, runs one dispatch on weight copy 0, and compares the
  // result with problem.expected.
  Validation validate(DeviceProblem& on_device, const kernels::Problem& problem, const kernels::Tolerance& tolerance,
                      std::chrono::nanoseconds timeout = vk::kDefaultTimeout);

  // Times dispatches rotating through every weight copy.
  vk::TimingResult time(DeviceProblem& on_device, const kernels::Shape& shape, const vk::TimerOptions& options);

  // Runs `dispatches` untimed dispatches and waits for them: work that keeps
  // the GPU's clocks up while the tuner waits for the next variant.
  void keep_busy(DeviceProblem& on_device, const kernels::Shape& shape, std::uint32_t dispatches);

 private:
  std::vector<VkDescriptorSet>& sets_for(const DeviceProblem& on_device);
  void record(VkCommandBuffer cmd, VkDescriptorSet set, const kernels::Shape& shape) const;

  vk::Device& device_;
  const CompiledVariant& variant_;
  std::unique_ptr<vk::ComputePipeline> pipeline_;
  const DeviceProblem* sets_owner_ = nullptr;
  std::vector<VkDescriptorSet> sets_;
};

}  // namespace vktune
