#include "engine/validation_inputs.hpp"

#include "engine/device_reference.hpp"

namespace vktune {

namespace {

// splitmix64: independent seeds from one.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<kernels::Inputs> further_validation_inputs(std::uint64_t seed) {
  return {kernels::Inputs{mix(seed ^ 1)}, kernels::Inputs{mix(seed ^ 2), kernels::InputKind::adversarial}};
}

std::vector<kernels::Inputs> final_check_inputs(std::uint64_t seed) {
  const kernels::Inputs timed{seed, kernels::InputKind::random, true};
  return {timed, kernels::Inputs{mix(seed ^ 3), kernels::InputKind::random, true},
          kernels::Inputs{mix(seed ^ 2), kernels::InputKind::adversarial, true}};
}

ValidationInputs::ValidationInputs(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                   std::vector<kernels::Inputs> inputs, const TemplateLibrary& templates)
    : kernel_(kernel), templates_(templates), inputs_(std::move(inputs)) {
  for (const auto& in : inputs_) problems_.push_back(kernel.make_problem(shape, in));
}

void ValidationInputs::upload(vk::Device& device) {
  on_device_.clear();
  for (auto& p : problems_) {
    on_device_.push_back(std::make_unique<DeviceProblem>(device, p, 1));
    complete_reference(device, kernel_, p, *on_device_.back(), templates_);
  }
}

kernels::Tolerance tolerance_for(const kernels::Inputs& inputs, kernels::Tolerance tolerance) {
  if (inputs.kind == kernels::InputKind::adversarial) {
    tolerance.rel_l2 *= 4;
    tolerance.max_rel *= 4;
  }
  return tolerance;
}

std::string describe(const kernels::Inputs& inputs, std::size_t index) {
  if (inputs.kind == kernels::InputKind::adversarial) return "the adversarial input";
  return "random input " + std::to_string(index + 1) + " (seed " + std::to_string(inputs.seed) + ")";
}

Validation validate_further(VariantRunner& runner, ValidationInputs& more, const kernels::Tolerance& tolerance,
                            std::chrono::nanoseconds timeout, Validation first) {
  if (!first.passed) return first;
  for (std::size_t i = 0; i < more.size(); ++i) {
    auto v = runner.validate(more.on_device(i), more.problem(i), tolerance_for(more.inputs(i), tolerance), timeout);
    if (!v.passed) {
      v.reason = "on " + describe(more.inputs(i), i + 1) + ": " + v.reason;
      return v;
    }
  }
  return first;  // the timed input's errors are the ones recorded
}

}  // namespace vktune
