#pragma once
// The decode step checked op by op on the GPU (`vktune step --check`): each
// op of the chain runs alone on the buffers the ops before it left, and its
// output is compared with the CPU reference of that op on those same inputs,
// within the tolerance its variant was validated to (kernels'
// variant_tolerance: fp32 rounding, or 8-bit activations' looser bound).
// Unlike the logits, this does not depend on how a model amplifies small
// differences over its layers, so it holds tuned chains of approximate
// variants to the same standard as each variant alone, and names the op
// that breaks.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "workloads/llm/model_description.hpp"
#include "workloads/llm/model_step.hpp"

namespace vktune::step {

struct OpVerdict {
  std::size_t op = 0;  // index into ModelStep::ops()
  double rel_l2 = 0, max_rel = 0;
  kernels::Tolerance tolerance;
  bool passed = false;
  std::string why;  // when failed
  // A product with 8-bit activations: its output against the CPU model of
  // that arithmetic (reference/activation_q8.hpp), which tells a wrong op
  // (far from both) from the approximation itself (close to the model),
  // and how spiky its input was (max |x| over the root mean square).
  std::optional<double> model_rel_l2;
  double input_crest = 0;
};

struct OpByOpCheck {
  std::vector<OpVerdict> ops;
  std::size_t failed = 0;
  double worst_share = 0;     // the largest rel_l2 / tolerance.rel_l2 over the ops
  std::vector<float> logits;  // of the op-by-op run
};

OpByOpCheck check_op_by_op(ModelStep& step, vk::Device& device, const model::ModelDescription& model);

}  // namespace vktune::step
