#pragma once
// The inputs a variant is validated on beyond the one it is timed on. One
// random input catches most wrong variants but not all: a variant wrong only
// when x[0] > 0 passed half the time. So every variant is also validated on a
// second random input and on an adversarial one (ref::InputKind), and a
// winner, before it is stored, is checked again on full references (every
// output, even where the search compared a sample) over several runs: the
// timed input twice (its outputs must agree bit for bit, else the variant is
// nondeterministic: a race, e.g. in a shared-memory reduction), then a fresh
// random input and the adversarial one.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/device.hpp"
#include "kernels/kernel.hpp"
#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"

namespace vktune {

// The inputs after the timed one (seed) that every variant is validated on.
std::vector<kernels::Inputs> further_validation_inputs(std::uint64_t seed);

// The winner's final check: the timed input (run twice on the same buffers),
// a fresh random input and the adversarial one, all with full references.
std::vector<kernels::Inputs> final_check_inputs(std::uint64_t seed);

// Problems made for a list of inputs and put on the device (one weight copy
// each), re-creatable after the device was reopened.
class ValidationInputs {
 public:
  // `templates` builds the kernel's device reference, when it has one.
  ValidationInputs(const kernels::Kernel& kernel, const kernels::Shape& shape, std::vector<kernels::Inputs> inputs,
                   const TemplateLibrary& templates);

  // (Re)uploads every problem to `device`; on the first upload, a kernel
  // with a device reference has it run there (engine/device_reference.hpp).
  void upload(vk::Device& device);
  std::size_t size() const { return problems_.size(); }
  const kernels::Problem& problem(std::size_t i) const { return problems_[i]; }
  DeviceProblem& on_device(std::size_t i) { return *on_device_[i]; }
  const kernels::Inputs& inputs(std::size_t i) const { return inputs_[i]; }

 private:
  const kernels::Kernel& kernel_;
  const TemplateLibrary& templates_;
  std::vector<kernels::Inputs> inputs_;
  std::vector<kernels::Problem> problems_;
  std::vector<std::unique_ptr<DeviceProblem>> on_device_;
};

// Validates on every input of `more` in turn after the timed problem's own
// validation `first` passed; the first failure is returned, its reason
// naming the input.
Validation validate_further(VariantRunner& runner, ValidationInputs& more, const kernels::Tolerance& tolerance,
                            std::chrono::nanoseconds timeout, Validation first);

// The accuracy required on an input: the variant's own, four times looser on
// the adversarial input. Its magnitudes spread over many octaves make
// results that cancel (an attention output, a dot product of mixed signs)
// small beside the terms that make them, so a correct fp32 variant's error
// relative to the result grows: measured on an H200, a correct attention
// variant reached 2.5e-5 against the 2e-5 it meets on uniform inputs. The
// errors this input exists to expose (a sign-dependent branch, an overflow,
// a code or scale at the grid's edge decoded wrong) are orders larger.
kernels::Tolerance tolerance_for(const kernels::Inputs& inputs, kernels::Tolerance tolerance);

// What an input is called in a failure's reason: "the second random input", ...
std::string describe(const kernels::Inputs& inputs, std::size_t index);

}  // namespace vktune
