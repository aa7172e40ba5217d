#include "engine/evaluator.hpp"

#include <cstring>

#include "common/error.hpp"
#include "harness/commands.hpp"

namespace vktune {

VariantRunner::VariantRunner(vk::Device& device, const CompiledVariant& variant, std::uint32_t buffer_count,
                             std::uint32_t shape_dims, std::uint32_t max_descriptor_sets, bool export_caches,
                             bool capture_statistics)
    : device_(device), variant_(variant) {
  if (!variant.compiled()) throw Error(ErrorKind::internal, "VariantRunner needs a compiled variant");
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    const auto& stage = variant.stages[i];
    vk::PipelineDesc desc;
    desc.label = stage.plan.template_file + " [" + kernels::config_to_string(variant.config) + "]";
    if (variant.stages.size() > 1) desc.label += " stage " + std::to_string(i);
    desc.storage_buffers = buffer_count;
    const auto words = stage.plan.push_constants.empty() ? shape_dims : stage.plan.push_constants.size();
    desc.push_constant_bytes = static_cast<std::uint32_t>(words * sizeof(std::uint32_t));
    desc.local_size = stage.plan.local_size;
    desc.required_subgroup_size = stage.plan.required_subgroup_size;
    desc.require_full_subgroups = stage.plan.require_full_subgroups;
    desc.specialization = stage.plan.specialization;
    desc.max_descriptor_sets = max_descriptor_sets;
    desc.cache_data = stage.pipeline_cache;
    desc.export_cache = export_caches;
    desc.capture_statistics = capture_statistics;
    pipelines_.push_back(std::make_unique<vk::ComputePipeline>(device, stage.spirv, desc));
  }
}

std::vector<std::vector<std::uint8_t>> VariantRunner::pipeline_caches() const {
  std::vector<std::vector<std::uint8_t>> caches;
  for (const auto& pipeline : pipelines_) caches.push_back(pipeline->cache_data());
  return caches;
}

std::vector<vk::PipelineStatistic> VariantRunner::statistics() const {
  std::vector<vk::PipelineStatistic> all;
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    for (auto s : pipelines_[i]->statistics()) {
      if (pipelines_.size() > 1) s.name = "stage " + std::to_string(i) + ": " + s.name;
      all.push_back(std::move(s));
    }
  }
  return all;
}

std::vector<std::vector<VkDescriptorSet>>& VariantRunner::sets_for(const DeviceProblem& on_device) {
  auto [it, inserted] = sets_.try_emplace(&on_device);
  if (inserted) {
    for (std::uint32_t c = 0; c < on_device.copies(); ++c) {
      auto bindings = on_device.bindings(c);
      auto& per_stage = it->second.emplace_back();
      for (auto& pipeline : pipelines_) {
        per_stage.push_back(pipeline->make_descriptor_set(bindings, DeviceProblem::binding_offset()));
      }
    }
  }
  return it->second;
}

void VariantRunner::record(VkCommandBuffer cmd, const std::vector<VkDescriptorSet>& sets,
                           const kernels::Shape& shape) const {
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    if (i > 0) vk::compute_barrier(cmd);  // stage i reads what stage i-1 wrote
    // The shape, unless the kernel declares a push-constant layout of its own.
    const auto& own = variant_.stages[i].plan.push_constants;
    const auto& words = own.empty() ? shape : own;
    const std::span<const std::uint8_t> push{reinterpret_cast<const std::uint8_t*>(words.data()),
                                             words.size() * sizeof(std::uint32_t)};
    pipelines_[i]->record_dispatch(cmd, sets[i], kernels::workgroup_counts(variant_.stages[i].plan.dispatch, shape),
                                   push);
  }
}

Validation VariantRunner::validate(DeviceProblem& on_device, const kernels::Problem& problem,
                                   const kernels::Tolerance& tolerance, std::chrono::nanoseconds timeout,
                                   std::vector<float>* output) {
  auto& sets = sets_for(on_device);
  const auto& limits = device_.info().max_workgroup_count;
  for (std::size_t s = 0; s < variant_.stages.size(); ++s) {
    const auto groups = kernels::workgroup_counts(variant_.stages[s].plan.dispatch, problem.shape);
    for (int i = 0; i < 3; ++i) {
      if (groups[i] > limits[i]) {
        throw Error(ErrorKind::device_limit,
                    (variant_.stages.size() > 1 ? "stage " + std::to_string(s) + ": " : std::string()) +
                        std::to_string(groups[i]) + " workgroups along axis " + std::to_string(i) +
                        " exceed maxComputeWorkGroupCount " + std::to_string(limits[i]));
      }
    }
  }
  on_device.poison_output(kPoison);
  vk::run_commands(device_, [&](VkCommandBuffer cmd) { record(cmd, sets[0], problem.shape); }, timeout);
  if (auto touched = on_device.check_guards()) {
    Validation v;
    v.out_of_bounds = true;
    v.reason = *touched;
    return v;
  }
  auto got = on_device.download_output(problem.expected.size());
  auto v = compare_output(got, problem.expected, tolerance);
  if (output) *output = std::move(got);
  return v;
}

vk::TimingResult VariantRunner::time(DeviceProblem& on_device, const kernels::Shape& shape,
                                     const vk::TimerOptions& options) {
  auto& sets = sets_for(on_device);
  return vk::time_dispatches(
      device_, [&](VkCommandBuffer cmd, std::uint64_t i) { record(cmd, sets[i % sets.size()], shape); }, options);
}

void VariantRunner::keep_busy(DeviceProblem& on_device, const kernels::Shape& shape, std::uint32_t dispatches) {
  auto& sets = sets_for(on_device);
  vk::run_commands(device_, [&](VkCommandBuffer cmd) {
    // A barrier between launches: they share the scratch buffers, and split
    // merges elect their last workgroup through counters there (two launches
    // in flight at once leave a counter off zero, and the next variant's
    // merge never runs: seen on the H200 as never-written outputs).
    for (std::uint32_t i = 0; i < dispatches; ++i) {
      if (i > 0) vk::compute_barrier(cmd);
      record(cmd, sets[i % sets.size()], shape);
    }
  });
  device_.note_timed_end();
}

}  // namespace vktune
