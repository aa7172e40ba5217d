#include "engine/evaluator.hpp"

#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "harness/bounds_instrumentation.hpp"
#include "harness/commands.hpp"

namespace vktune {

VariantRunner::VariantRunner(vk::Device& device, const CompiledVariant& variant, std::uint32_t buffer_count,
                             std::uint32_t shape_dims, std::uint32_t max_descriptor_sets, bool export_caches,
                             bool capture_statistics, bool check_bounds)
    : device_(device), variant_(variant) {
  if (!variant.compiled()) throw Error(ErrorKind::internal, "VariantRunner needs a compiled variant");
  // Room for this many records; past it the output still counts them.
  constexpr std::uint32_t kBoundsRecords = 64;
  if (check_bounds) {
    bounds_output_ = std::make_unique<vk::Buffer>(device, vk::bounds_output_words(kBoundsRecords) * 4ull);
  }
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    const auto& stage = variant.stages[i];
    vk::PipelineDesc desc;
    desc.label = stage.plan.template_file + " [" + kernels::config_to_string(variant.config) + "]";
    if (variant.stages.size() > 1) desc.label += " stage " + std::to_string(i);
    desc.storage_buffers = buffer_count;
    desc.uniform_buffers = stage.plan.uniform_buffers;
    desc.images = stage.plan.images;
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
    if (!check_bounds) {
      pipelines_.push_back(std::make_unique<vk::ComputePipeline>(device, stage.spirv, desc));
      continue;
    }
    desc.bounds_set = true;
    access_bindings_.push_back(vk::buffer_access_bindings(stage.spirv));
    std::vector<std::uint32_t> instrumented;
    try {
      instrumented = vk::instrument_bounds(stage.spirv, static_cast<std::uint32_t>(i));
    } catch (const Error& e) {
      throw Error(e.kind(), variant.stages.size() > 1 ? "stage " + std::to_string(i) + ": " + e.what() : e.what());
    }
    pipelines_.push_back(std::make_unique<vk::ComputePipeline>(device, instrumented, desc));
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

VariantRunner::ProblemSets& VariantRunner::sets_for(const DeviceProblem& on_device) {
  auto [it, inserted] = sets_.try_emplace(&on_device);
  if (inserted) {
    auto& sets = it->second;
    for (std::uint32_t c = 0; c < on_device.copies(); ++c) {
      auto bindings = on_device.bindings(c);
      const std::vector<VkDeviceSize> offsets(bindings.size(), DeviceProblem::binding_offset());
      const auto images = on_device.images();
      auto& per_stage = sets.kernel.emplace_back();
      for (auto& pipeline : pipelines_) per_stage.push_back(pipeline->make_descriptor_set(bindings, offsets, images));
    }
    if (bounds_output_) {
      const auto words = vk::bounds_input_words(on_device.data_lengths());
      sets.lengths = std::make_unique<vk::Buffer>(device_, words.size() * sizeof(std::uint32_t));
      sets.lengths->upload_values(std::span<const std::uint32_t>(words));
      for (auto& pipeline : pipelines_) sets.bounds.push_back(pipeline->make_bounds_set(*bounds_output_, *sets.lengths));
    }
  }
  return it->second;
}

void VariantRunner::record(VkCommandBuffer cmd, const ProblemSets& sets, std::size_t copy, const kernels::Shape& shape,
                           const MarkStage& mark) const {
  const auto& kernel_sets = sets.kernel[copy % sets.kernel.size()];
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    if (i > 0) vk::compute_barrier(cmd);  // stage i reads what stage i-1 wrote
    // The shape, unless the kernel declares a push-constant layout of its own.
    const auto& own = variant_.stages[i].plan.push_constants;
    const auto& words = own.empty() ? shape : own;
    const std::span<const std::uint8_t> push{reinterpret_cast<const std::uint8_t*>(words.data()),
                                             words.size() * sizeof(std::uint32_t)};
    pipelines_[i]->record_dispatch(cmd, kernel_sets[i],
                                   kernels::workgroup_counts(variant_.stages[i].plan.dispatch, shape), push,
                                   sets.bounds.empty() ? VK_NULL_HANDLE : sets.bounds[i]);
    if (mark) mark(cmd);
  }
}

std::string VariantRunner::bounds_violations(const kernels::Problem& problem) const {
  const auto words = bounds_output_->download_values<std::uint32_t>();
  std::size_t attempted = 0;
  const auto records = vk::read_bounds_records(words, attempted);
  if (records.empty()) {
    return attempted > 0 ? "out of bounds: " + std::to_string(attempted) +
                               " accesses past a buffer's end (bounds-instrumented validation)"
                         : "";
  }
  const auto& first = records.front();
  // A record holds the length it was checked against, not the binding: the
  // binding its instruction accesses, else the buffers of that length.
  std::string names;
  const auto& bindings = access_bindings_.at(std::min<std::size_t>(first.shader_id, access_bindings_.size() - 1));
  if (const auto b = bindings.find(first.instruction); b != bindings.end() && b->second < problem.buffers.size()) {
    names = "'" + problem.buffers[b->second].name + "'";
  } else {
    for (const auto& buffer : problem.buffers) {
      if (std::max<std::size_t>(buffer.bytes.size(), 4) != first.length) continue;
      names += (names.empty() ? "'" : " or '") + buffer.name + "'";
    }
  }
  if (names.empty()) names = "a buffer";
  const std::string stage = variant_.stages.size() > 1 ? " in stage " + std::to_string(first.shader_id) : "";
  return "out of bounds: an access reached byte " + std::to_string(first.last_byte) + " of buffer " + names + " (" +
         std::to_string(first.length) + " bytes)" + stage + " at invocation (" + std::to_string(first.invocation[0]) +
         ", " + std::to_string(first.invocation[1]) + ", " + std::to_string(first.invocation[2]) + "); " +
         std::to_string(attempted) + (attempted == 1 ? " such access" : " such accesses") +
         " (bounds-instrumented validation)";
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
  if (bounds_output_) bounds_output_->fill(0);
  vk::run_commands(device_, [&](VkCommandBuffer cmd) { record(cmd, sets, 0, problem.shape); }, timeout);
  const auto outside = bounds_output_ ? bounds_violations(problem) : std::string();
  auto touched = on_device.check_guards();  // restores the bands in any case
  if (!outside.empty()) touched = outside;
  if (touched) {
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
      device_, [&](VkCommandBuffer cmd, std::uint64_t i) { record(cmd, sets, i, shape); }, options);
}

VariantRunner::StageTimes VariantRunner::time_stages(DeviceProblem& on_device, const kernels::Shape& shape,
                                                    int samples) {
  auto& sets = sets_for(on_device);
  std::size_t copy = 0;
  const auto timing = vk::time_phases(
      device_, [&](VkCommandBuffer cmd, const MarkStage& mark) { record(cmd, sets, copy++, shape, mark); },
      static_cast<std::uint32_t>(pipelines_.size()), samples);
  StageTimes times{{}, timing.median_ns, timing.total_ns};
  for (const auto& stage : variant_.stages) times.templates.push_back(stage.plan.template_file);
  return times;
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
      record(cmd, sets, i, shape);
    }
  });
  device_.note_timed_end();
}

}  // namespace vktune
