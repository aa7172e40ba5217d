#include "engine/device_reference.hpp"

#include <algorithm>

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "engine/evaluator.hpp"
#include "engine/variant.hpp"

namespace vktune {

void complete_reference(vk::Device& device, const kernels::Kernel& kernel, kernels::Problem& problem,
                        DeviceProblem& on_device, const TemplateLibrary& templates) {
  if (!problem.expected.empty()) return;
  const auto reference = kernel.device_reference(problem.shape);
  if (!reference) return;
  const auto& shape = problem.shape;
  const std::string which = kernel.name() + " " + kernels::shape_to_string(shape) + ": " + reference->description;
  auto fail = [&](const std::string& problem_text) { throw Error(ErrorKind::usage, which + " " + problem_text); };
  const auto buffers = static_cast<std::uint32_t>(problem.buffers.size());
  if (reference->config) {
    if (auto why = kernel.constraint_violation(*reference->config, shape, device.info()); !why.empty()) {
      fail("is not legal on this device: " + why.detail);
    }
  }
  if (auto why = kernels::stages_limits_violation(reference->stages, shape, buffers, device.info()); !why.empty()) {
    fail("exceeds this device's limits: " + why.detail);
  }
  CompiledVariant variant;
  variant.config = reference->config.value_or(kernels::Config{});
  for (const auto& plan : reference->stages) {
    auto& stage = variant.stages.emplace_back();
    stage.plan = plan;
    stage.template_hash = templates.content_hash(plan.template_file);
  }
  std::vector<float> output;
  Validation ran;
  try {
    compile_variant(variant, templates);
    // A descriptor set per weight copy (a cold-cache tune rotates up to 64).
    VariantRunner runner(device, variant, buffers, static_cast<std::uint32_t>(kernel.shape_dims().size()),
                         std::max(2u, on_device.copies()));
    // Every element NaN: "only required to be finite", so the launch passes
    // when it writes every output, stays inside its buffers and finishes.
    const auto outputs =
        problem.buffers.at(problem.output_index).bytes.size() / (problem.output_f16 ? 2 : sizeof(float));
    problem.expected.assign(outputs, std::numeric_limits<double>::quiet_NaN());
    ran = runner.validate(on_device, problem, kernel.tolerance(shape), vk::kDefaultTimeout, &output);
  } catch (const Error& e) {
    problem.expected.clear();
    fail(std::string("failed: ") + e.what());
  }
  if (!ran.passed) {
    problem.expected.clear();
    fail("is not a reference here: " + ran.reason);
  }
  problem.expected.assign(output.begin(), output.end());
}

}  // namespace vktune
