#include "kernels/spec/spec_kernel.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "kernels/kernel_support.hpp"
#include "kernels/spec/spec_buffers.hpp"
#include "kernels/spec/spec_image.hpp"
#include "kernels/spec/spec_prefix_checker.hpp"
#include "kernels/spec/spec_push_constants.hpp"
#include "kernels/spec/spec_reference.hpp"
#include "kernels/spec/spec_size_rule.hpp"
#include "kernels/spec/spec_uniform.hpp"

namespace vktune::kernels::spec {

std::vector<double> device_facts(const vk::DeviceInfo& device) {
  std::vector<double> facts(device_fact_names().size());
  fill_device_facts(device, facts.data());
  return facts;
}

void fill_device_facts(const vk::DeviceInfo& device, double* out) {
  const auto& f = device.features;
  const double facts[] = {static_cast<double>(device.subgroup_size),
          static_cast<double>(device.min_subgroup_size),
          static_cast<double>(device.max_subgroup_size),
          static_cast<double>(device.max_shared_memory_bytes),
          static_cast<double>(device.max_workgroup_invocations),
          static_cast<double>(device.max_workgroup_size[0]),
          static_cast<double>(device.max_workgroup_size[1]),
          static_cast<double>(device.max_workgroup_size[2]),
          static_cast<double>(device.max_workgroup_count[0]),
          static_cast<double>(device.max_workgroup_count[1]),
          static_cast<double>(device.max_workgroup_count[2]),
          f.shader_float16 ? 1.0 : 0.0,
          f.shader_int8 ? 1.0 : 0.0,
          f.integer_dot_product ? 1.0 : 0.0,
          f.storage_buffer_16bit ? 1.0 : 0.0,
          f.storage_buffer_8bit ? 1.0 : 0.0,
          device.subgroup_in_compute && device.has_subgroup_operation("arithmetic") ? 1.0 : 0.0,
          device.subgroup_in_compute && device.has_subgroup_operation("shuffle") ? 1.0 : 0.0,
          device.compute_required_subgroup_size ? 1.0 : 0.0,
          !device.tensor_core_shapes().empty() ? 1.0 : 0.0,
          device.is_cpu() ? 1.0 : 0.0};
  if (std::size(facts) != device_fact_names().size()) throw Error(ErrorKind::internal, "device facts and names differ");
  std::copy(std::begin(facts), std::end(facts), out);
}

namespace {

// A positive whole number below 2^32, or nullopt.
std::optional<std::uint32_t> whole(double v) {
  if (!std::isfinite(v) || v < 0 || v > 4294967295.0 || v != std::floor(v)) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

}  // namespace

SpecKernel::SpecKernel(Definition definition) : d_(std::move(definition)) {
  for (const auto& b : d_.buffers) {
    if (b.uniform) {
      std::string why;
      auto binding = uniform_contract_binding(d_, b, why);
      if (!binding) {
        // As for a push word: it tunes, but no contract is written for it.
        if (uniform_unfit_.empty()) uniform_unfit_ = why;
        binding = Binding{b.name, BindingRole::uniform, size_rule(b.uniform_bytes, {})};
      }
      bindings_.push_back(std::move(*binding));
      continue;
    }
    // An image's size is its tensor's, which no contract carries (image_contract_unfit).
    Binding binding{b.name, b.role, b.image ? SizeRule{} : fit_size_rule(d_, b)};
    binding.alias_of = b.alias_of;
    bindings_.push_back(std::move(binding));
  }
  // A word the contract cannot carry is no reason not to tune: the refusal
  // waits for the launch contract (kernels/variant_contract.cpp).
  push_words_ = fit_push_constants(d_, push_unfit_);
  uniform_buffers_ = uniform_bindings(d_);
}

void SpecKernel::validate_shape(const Shape& shape) const {
  // Not the product of every dim: a spec's buffers need not span the whole
  // shape (a convolution's input and output extents are dims of their own),
  // and check_sizes holds each buffer to 32-bit indexing itself.
  support::check_dim_count(d_.name, d_.dims, shape);
  check_sizes(d_, shape, Node(nlohmann::json(), "", d_.file));
  check_reference_sizes(d_, shape);
}

void SpecKernel::validate_shape_once(const Shape& shape) const {
  {
    std::lock_guard lock(shape_lock_);
    if (shape == last_valid_shape_) return;
  }
  validate_shape(shape);
  std::lock_guard lock(shape_lock_);
  last_valid_shape_ = shape;
}

std::size_t SpecKernel::path_index(const Config& config) const {
  if (d_.paths.size() == 1) return 0;
  const auto it = config.find(kPathParameter);
  if (it == config.end() || it->second < 0 || static_cast<std::size_t>(it->second) >= d_.paths.size()) return 0;
  return static_cast<std::size_t>(it->second);
}

std::vector<double> SpecKernel::values_of(const Config& config, const Shape& shape) const {
  std::vector<double> values(d_.full_scope.size(), 0.0);
  for (std::size_t i = 0; i < shape.size() && i < d_.dims.size(); ++i) values[i] = shape[i];
  for (std::size_t i = 0; i < d_.parameters.size(); ++i) {
    const auto it = config.find(d_.parameters[i].name);
    if (it != config.end()) values[d_.dims.size() + i] = it->second;
  }
  return values;
}

std::vector<Space> SpecKernel::build_spaces() const {
  Space space{d_.name, d_.paths.front().stages.front().template_file, d_.parameters};
  space.bindings = bindings_;
  space.push_constants = push_words_;
  space.contract_unfit = push_unfit_.empty() ? uniform_unfit_ : push_unfit_;
  if (space.contract_unfit.empty()) space.contract_unfit = image_contract_unfit(d_);
  for (const auto& pc : d_.push_constants) space.float_push_words.push_back(pc.type == PushType::f32);
  for (const auto& b : d_.buffers) {
    if (!b.uniform) continue;
    std::vector<bool> floats(b.uniform_bytes / 4, false);
    for (const auto& m : b.members)
      for (std::size_t i = 0; i < m.lanes.size(); ++i) floats[m.offset / 4 + i] = m.lanes[i].type == PushType::f32;
    space.float_uniform_words.emplace_back(b.binding, std::move(floats));
  }
  for (std::size_t i = 0; i < d_.paths.size(); ++i) {
    const auto& sub = d_.paths[i];
    Path path{sub.name, sub.parameters, {}};
    path.covering_strength = sub.covering_strength;
    for (const auto& p : d_.parameters) {
      const bool varied = std::any_of(sub.parameters.begin(), sub.parameters.end(), [&](auto& q) { return q.name == p.name; });
      if (!varied) path.pinned[p.name] = p.name == kPathParameter ? static_cast<int>(i) : p.values.front();
    }
    space.paths.push_back(path);
    for (const auto& rule : sub.pruning) {
      const Expression* expression = &rule.expression;
      space.pruning.push_back({sub.name + "." + rule.name, rule.reason, rule.measured_on,
                               [this, i, expression](const Config& config, const Shape& shape) {
                                 if (path_index(config) != i) return false;
                                 const auto values = values_of(config, shape);
                                 return expression->evaluate(values.data()) != 0;
                               }});
    }
  }
  // One path: the space itself (unless it says how the gate covers it).
  if (d_.paths.size() == 1 && d_.paths.front().covering_strength == 2) space.paths.clear();
  return {space};
}

Config SpecKernel::baseline(const Shape&) const {
  Config config;
  for (const auto& p : d_.parameters) config[p.name] = p.name == kPathParameter ? 0 : p.values.front();
  for (const auto& [name, value] : d_.paths.front().baseline) config[name] = value;
  return config;
}

ShaderPlan SpecKernel::stage_plan(const Stage& stage, const PathSpec& sub, const Config& config,
                                  const std::vector<double>& values, std::string* problem, bool defines) const {
  ShaderPlan plan;
  plan.template_file = stage.template_file;
  plan.uniform_buffers = uniform_buffers_;
  if (defines) {
    for (std::size_t i = 0; i < d_.parameters.size(); ++i) {
      const auto& name = d_.parameters[i].name;
      const int value = config.at(name);
      const auto& delivery = d_.delivery[i];
      if (delivery.define && (value != 0 || !delivery.define_if_nonzero)) plan.defines.emplace_back(name, std::to_string(value));
      if (d_.delivery[i].constant_id) plan.specialization.emplace_back(*d_.delivery[i].constant_id, static_cast<std::uint32_t>(value));
    }
    std::sort(plan.specialization.begin(), plan.specialization.end());
    for (const auto& define : sub.defines) plan.defines.push_back(define);
    // The spec's own text, so that the variant hash (over the defines)
    // changes whenever the spec does; the template never reads it. As an
    // identifier: glslang tokenizes every -D value, and a bare hex digest
    // such as 07ffb... reads as a malformed number and fails the compile.
    plan.defines.emplace_back("VKTUNE_SPEC_HASH", "h" + d_.text_hash);
  }
  auto evaluate = [&](const Expression& e, const char* what, std::uint32_t min) -> std::uint32_t {
    const auto v = whole(e.evaluate(values.data()));
    if ((!v || *v < min) && problem->empty()) {
      *problem = std::string(what) + " '" + e.text() + "' is not a whole number of at least " + std::to_string(min);
    }
    return v.value_or(min);
  };
  for (std::size_t i = 0; i < 3; ++i) plan.local_size[i] = evaluate(*stage.local_size[i], "local_size", 1);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& axis = stage.workgroups[i];
    if (axis.folded) {  // the load checked that axis i - 1 folds
      const auto& before = plan.dispatch[i - 1];
      plan.dispatch[i].shape_dim = before.shape_dim;
      plan.dispatch[i].divisor = folded_divisor(before.divisor, before.fold);
      continue;
    }
    plan.dispatch[i].shape_dim = axis.dim;
    plan.dispatch[i].divisor = axis.per_workgroup ? evaluate(*axis.per_workgroup, "per_workgroup", 1) : 1;
    if (axis.fold) plan.dispatch[i].fold = evaluate(*axis.fold, "fold", 1);
  }
  if (stage.shared_memory_bytes) plan.shared_memory_bytes = evaluate(*stage.shared_memory_bytes, "shared_memory_bytes", 0);
  if (stage.subgroup_size) plan.required_subgroup_size = evaluate(*stage.subgroup_size, "subgroup_size", 0);
  if (stage.full_subgroups) plan.require_full_subgroups = evaluate(*stage.full_subgroups, "require_full_subgroups", 0) != 0;
  if (!defines) {
    plan.push_constants.assign(d_.push_constants.size(), 0);  // only their count matters to the limits
    return plan;
  }
  plan.push_constants = push_words(values);
  return plan;
}

std::vector<std::uint32_t> SpecKernel::push_words(const std::vector<double>& values) const {
  std::vector<std::uint32_t> words;
  for (const auto& pc : d_.push_constants) words.push_back(push_word_bits(pc, values.data()).value_or(0));
  return words;
}

std::vector<ShaderPlan> SpecKernel::stages(const Config& config, const Shape& shape) const {
  const auto& sub = d_.paths[path_index(config)];
  const auto values = values_of(config, shape);
  std::vector<ShaderPlan> plans;
  for (const auto& stage : sub.stages) {
    std::string problem;
    plans.push_back(stage_plan(stage, sub, config, values, &problem));
    if (!problem.empty()) throw Error(ErrorKind::usage, d_.file + ": " + problem + " for " + config_to_string(config));
    plans.back().images = image_bindings(d_, shape);
  }
  return plans;
}

ShaderPlan SpecKernel::plan(const Config& config, const Shape& shape) const { return stages(config, shape).front(); }

Violation legality_violation(const std::string& reason, const std::string& expression, double value) {
  if (!std::isnan(value) && value != 0) return {};
  // A rule with no reason is still a rule: named by its expression.
  const std::string id = reason.empty() ? expression : reason;
  if (std::isnan(value)) return {id, reason + " ('" + expression + "' is not a number here)"};
  return {id, reason + " (" + expression + ")"};
}

Violation SpecKernel::constraint_violation(const Config& config, const Shape& shape,
                                           const vk::DeviceInfo& device) const {
  validate_shape_once(shape);
  if (auto problem = support::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
  const auto& space = spaces()[0];
  if (!space.paths.empty() && space.path_of(config) == nullptr) {
    return legality::kNoPath("the config belongs to no sub-space");
  }
  // The same for every config: a device without the images' format or extent runs none.
  if (auto why = image_violation(d_, shape, device); !why.empty()) return why;
  const auto& sub = d_.paths[path_index(config)];
  auto values = values_of(config, shape);
  fill_device_facts(device, values.data() + d_.device_offset);
  for (const auto& rule : sub.legality) {
    const double value = rule.expression.evaluate(values.data());
    if (auto why = legality_violation(rule.reason, rule.expression.text(), value); !why.empty()) return why;
  }
  std::vector<ShaderPlan> plans;
  for (const auto& stage : sub.stages) {
    std::string problem;
    plans.push_back(stage_plan(stage, sub, config, values, &problem, false));
    if (!problem.empty()) return kStageValue(problem);
    const auto& plan = plans.back();
    const auto invocations = std::uint64_t{plan.local_size[0]} * plan.local_size[1] * plan.local_size[2];
    if (auto sg = support::subgroup_size_violation(static_cast<int>(plan.required_subgroup_size),
                                                   static_cast<std::uint32_t>(std::min<std::uint64_t>(invocations, 1u << 30)),
                                                   device);
        !sg.empty()) {
      return sg;
    }
  }
  return stages_limits_violation(plans, shape, static_cast<std::uint32_t>(d_.buffers.size()), device);
}

Problem SpecKernel::make_problem(const Shape& shape, const Inputs& inputs) const {
  validate_shape(shape);
  Problem problem;
  problem.shape = shape;
  problem.output_index = d_.output;
  // Poisoned with fp16 NaNs and widened on read-back, like a built-in's fp16 cache.
  problem.output_f16 = d_.buffers[d_.output].type == ElementType::f16;
  std::vector<std::vector<float>> values;
  const auto shape_values = values_of({}, shape);
  for (const auto& b : d_.buffers) {
    if (b.alias_of >= 0) {
      // The target's buffer, bound here too: nothing of its own, and the
      // reference (which names the target) reads no values of it.
      HostBuffer alias{b.name, {}};
      alias.alias_of = b.alias_of;
      problem.buffers.push_back(std::move(alias));
      values.emplace_back();
      continue;
    }
    if (b.uniform) {
      // The shape's metadata, the same for every seed: written by the host, never compared.
      problem.buffers.push_back({b.name, uniform_block(d_, b, shape_values.data(), shape)});
      values.emplace_back();
      continue;
    }
    auto contents = make_contents(b, element_count(d_, b, shape), inputs.seed, inputs.kind);
    problem.buffers.push_back(std::move(contents.host));
    values.push_back(std::move(contents.values));
  }
  // A device reference's output is the tuner's to fill (Kernel::device_reference).
  if (reference_on_cpu(d_.reference)) problem.expected = reference_output(d_, shape, values, problem.buffers);
  // The references read logical tensors; the device sees texels (spec_image.hpp).
  for (std::size_t i = 0; i < d_.buffers.size(); ++i) {
    const auto& b = d_.buffers[i];
    if (!b.image) continue;
    const auto extents = packed_extents(d_, b, shape);
    pack_host_image(problem.buffers[i], extents, image_binding(d_, b, shape));
    if (i != d_.output || problem.expected.empty()) continue;
    // Padding channels: 0, or NaN for "any" (a NaN expected only asks for a finite value).
    const double padding = b.image->padding_any ? std::nan("") : 0.0;
    problem.expected = pack_channels<double>(problem.expected, extents, padding);
  }
  return problem;
}

std::optional<DeviceReference> SpecKernel::device_reference(const Shape& shape) const {
  const auto& r = d_.reference;
  if (reference_on_cpu(r)) return std::nullopt;
  if (r.kind == ReferenceSpec::Kind::config) {
    return DeviceReference{"the trusted config " + config_to_string(r.trusted), r.trusted, stages(r.trusted, shape)};
  }
  const auto values = values_of({}, shape);
  std::string problem;
  auto plan = stage_plan(*r.stage, d_.paths.front(), {}, values, &problem, false);
  if (!problem.empty()) throw Error(ErrorKind::usage, d_.file + ": " + r.pointer + ": " + problem);
  plan.defines = r.defines;
  plan.push_constants = push_words(values);
  plan.images = image_bindings(d_, shape);
  return DeviceReference{"the reference kernel " + r.stage->template_file.substr(r.stage->template_file.rfind('/') + 1),
                         std::nullopt,
                         {plan}};
}

std::unique_ptr<PrefixChecker> SpecKernel::prefix_checker(const Path& path, const Shape& shape,
                                                          const vk::DeviceInfo& device,
                                                          const std::vector<const PruningRule*>& pruning) const {
  return make_prefix_checker(*this, path, shape, device, pruning);
}

Tolerance SpecKernel::tolerance(const Shape&) const { return d_.tolerance; }

Tolerance SpecKernel::variant_tolerance(const Config& config, const Shape& shape) const {
  const auto& sub = d_.paths[path_index(config)];
  return sub.tolerance ? *sub.tolerance : tolerance(shape);
}

Metrics SpecKernel::metrics(const Shape& shape) const {
  const auto values = values_of({}, shape);
  return Metrics{d_.bytes->evaluate(values.data()), d_.flops->evaluate(values.data())};
}

std::uint64_t SpecKernel::device_bytes(const Shape& shape) const {
  std::uint64_t total = 0;
  for (const auto& b : d_.buffers)
    if (b.alias_of < 0) total += buffer_bytes(b, element_count(d_, b, shape));
  return total;
}

}  // namespace vktune::kernels::spec
