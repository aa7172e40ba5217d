#pragma once
// Running one compiled variant on a device: create its pipelines (one per
// stage), validate it against the reference with a poisoned output, and time
// it. A launch is every stage in order with a compute-to-compute barrier
// between them; validation checks the output of the whole launch and timing
// reports the time of the whole launch (time_stages, that of each stage).
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/phase_timer.hpp"
#include "harness/pipeline.hpp"
#include "harness/timer.hpp"
#include "kernels/kernel.hpp"
#include "engine/device_problem.hpp"
#include "engine/validation.hpp"
#include "engine/variant.hpp"

namespace vktune {

// NaN bit pattern written over outputs before a validation run.
inline constexpr std::uint32_t kPoison = 0x7fc00000u;

class VariantRunner {
 public:
  // Creates the pipelines for a kernel with `buffer_count` bindings and
  // `shape_dims` push-constant words (the kernel conventions); throws
  // Error(device_limit) or Error(pipeline).
  // Each stage's pipeline starts from its `pipeline_cache` where it has one;
  // with `export_caches`, pipeline_caches() returns each stage's cache data;
  // with `capture_statistics`, statistics() the driver's pipeline statistics;
  // with `check_bounds`, the pipelines run bounds-instrumented modules
  // (harness/bounds_instrumentation.hpp) and validate() fails any access past
  // a buffer's data, however far (Error(compile) when a stage cannot be
  // instrumented).
  VariantRunner(vk::Device& device, const CompiledVariant& variant, std::uint32_t buffer_count,
                std::uint32_t shape_dims, std::uint32_t max_descriptor_sets = 80, bool export_caches = false,
                bool capture_statistics = false, bool check_bounds = false);

  // With export_caches: per stage, the data of the cache its pipeline was made with.
  std::vector<std::vector<std::uint8_t>> pipeline_caches() const;
  // With capture_statistics, where the device offers them: every stage's
  // statistics, named "stage N: ..." when the variant has several stages.
  std::vector<vk::PipelineStatistic> statistics() const;

  // Poisons the output, runs one launch on weight copy 0, checks the guard
  // bands and, with check_bounds, the instrumentation's records (either
  // fails with out_of_bounds set), and compares the
  // result with problem.expected. A runner may validate on several problems.
  // `output`, when given, receives the output as downloaded.
  Validation validate(DeviceProblem& on_device, const kernels::Problem& problem, const kernels::Tolerance& tolerance,
                      std::chrono::nanoseconds timeout = vk::kDefaultTimeout, std::vector<float>* output = nullptr);

  // Times launches rotating through every weight copy.
  vk::TimingResult time(DeviceProblem& on_device, const kernels::Shape& shape, const vk::TimerOptions& options);

  // Each stage's time in launches with a timestamp after every stage
  // (harness/phase_timer.hpp: `samples` launches back to back, rotating
  // through the weight copies); a stage's time includes the barrier before
  // it, so the stages sum to the launch. The caller warms the clocks first.
  struct StageTimes {
    std::vector<std::string> templates;  // each stage's template file, in launch order
    std::vector<double> median_ns;       // each stage's median
    vk::TimingStats launch_ns;           // first timestamp to last
  };
  StageTimes time_stages(DeviceProblem& on_device, const kernels::Shape& shape, int samples);

  // Runs `dispatches` untimed launches (one after another) and waits for them: work that keeps
  // the GPU's clocks up while the tuner waits for the next variant.
  void keep_busy(DeviceProblem& on_device, const kernels::Shape& shape, std::uint32_t dispatches);

 private:
  // A problem's bindings: [copy][stage] kernel sets, and with check_bounds
  // the input buffer of its data's lengths and a bounds set per stage.
  struct ProblemSets {
    std::vector<std::vector<VkDescriptorSet>> kernel;
    std::unique_ptr<vk::Buffer> lengths;
    std::vector<VkDescriptorSet> bounds;
  };
  ProblemSets& sets_for(const DeviceProblem& on_device);
  // Called after each stage's dispatch where given (time_stages).
  using MarkStage = std::function<void(VkCommandBuffer)>;
  void record(VkCommandBuffer cmd, const ProblemSets& sets, std::size_t copy, const kernels::Shape& shape,
              const MarkStage& mark = {}) const;
  // The instrumentation's records since the output was cleared, as a reason; "" when none.
  std::string bounds_violations(const kernels::Problem& problem) const;

  vk::Device& device_;
  const CompiledVariant& variant_;
  // One pipeline per stage; every stage binds the same buffers, each through
  // a descriptor set made from its own pipeline's layout.
  std::vector<std::unique_ptr<vk::ComputePipeline>> pipelines_;
  // Per problem on the device (the timed one, the other validation inputs).
  std::map<const DeviceProblem*, ProblemSets> sets_;
  std::unique_ptr<vk::Buffer> bounds_output_;  // with check_bounds: the records of every stage
  // With check_bounds, per stage: the binding each access instruction reads or writes.
  std::vector<std::map<std::uint32_t, std::uint32_t>> access_bindings_;
};

}  // namespace vktune
