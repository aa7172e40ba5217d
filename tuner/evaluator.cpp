#include "tuner/evaluator.hpp"

#include <cstring>

#include "common/error.hpp"
#include "harness/commands.hpp"

namespace vktune {

VariantRunner::VariantRunner(vk::Device& device, const CompiledVariant& variant, std::uint32_t buffer_count,
                             std::uint32_t shape_dims, std::uint32_t max_descriptor_sets)
    : device_(device), variant_(variant) {
  vk::PipelineDesc desc;
  desc.label = variant.plan.template_file + " [" + kernels::config_to_string(variant.config) + "]";
  desc.storage_buffers = buffer_count;
  desc.push_constant_bytes = shape_dims * sizeof(std::uint32_t);
  desc.local_size = variant.plan.local_size;
  desc.required_subgroup_size = variant.plan.required_subgroup_size;
  desc.require_full_subgroups = variant.plan.require_full_subgroups;
  desc.max_descriptor_sets = max_descriptor_sets;
  pipeline_ = std::make_unique<vk::ComputePipeline>(device, variant.spirv, desc);
}

std::vector<VkDescriptorSet>& VariantRunner::sets_for(const DeviceProblem& on_device) {
  if (sets_owner_ != &on_device) {
    if (sets_owner_ != nullptr) {
      throw Error(ErrorKind::internal, "a VariantRunner serves one DeviceProblem; make a new runner for another");
    }
    for (std::uint32_t c = 0; c < on_device.copies(); ++c) {
      auto bindings = on_device.bindings(c);
      sets_.push_back(pipeline_->make_descriptor_set(bindings));
    }
    sets_owner_ = &on_device;
  }
  return sets_;
}

void VariantRunner::record(VkCommandBuffer cmd, VkDescriptorSet set, const kernels::Shape& shape) const {
  const auto groups = kernels::workgroup_counts(variant_.plan.dispatch, shape);
  pipeline_->record_dispatch(cmd, set, groups,
                             {reinterpret_cast<const std::uint8_t*>(shape.data()), shape.size() * sizeof(std::uint32_t)});
}

Validation VariantRunner::validate(DeviceProblem& on_device, const kernels::Problem& problem,
                                   const kernels::Tolerance& tolerance, std::chrono::nanoseconds timeout) {
  auto& sets = sets_for(on_device);
  const auto groups = kernels::workgroup_counts(variant_.plan.dispatch, problem.shape);
  const auto& limits = device_.info().max_workgroup_count;
  for (int i = 0; i < 3; ++i) {
    if (groups[i] > limits[i]) {
      throw Error(ErrorKind::device_limit, std::to_string(groups[i]) + " workgroups along axis " + std::to_string(i) +
                                               " exceed maxComputeWorkGroupCount " + std::to_string(limits[i]));
    }
  }
  on_device.output().fill(kPoison);
  vk::run_commands(device_, [&](VkCommandBuffer cmd) { record(cmd, sets[0], problem.shape); }, timeout);
  auto got = on_device.output().download_values<float>();
  got.resize(problem.expected.size());
  return compare_output(got, problem.expected, tolerance);
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
    for (std::uint32_t i = 0; i < dispatches; ++i) record(cmd, sets[i % sets.size()], shape);
  });
  device_.note_timed_end();
}

}  // namespace vktune
