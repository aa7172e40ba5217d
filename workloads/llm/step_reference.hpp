#pragma once
// The CPU reference of a model step (workloads/llm/model_step.hpp; a decode
// token or a prompt's prefill): the same chain in double precision from the
// same weights, tokens and cache, each op's result stored as fp32 (and the
// new k and v as fp16) as the GPU chain
// stores it between ops, so the two differ only by the kernels' own
// rounding.
//
// With Activations::as_variants, a product whose variant quantizes its
// activations to 8 bits (X_QUANT=1) quantizes them the same way
// (reference/activation_q8.hpp): how far that chain is from the exact one
// is what the approximation alone does to the logits. (A GPU chain of such
// variants does not follow either bit for bit: a code that rounds the other
// way in one product moves every later one, so the chain is checked op by
// op, workloads/llm/step_op_check.hpp.)
#include <vector>

#include "workloads/llm/model_description.hpp"
#include "workloads/llm/model_step.hpp"

namespace vktune::step {

enum class Activations { exact, as_variants };

// The logits (vocab values).
// `position_shift` moves every token's position (to show that the logits
// depend on them: the rope angles, and the entries attention reads).
std::vector<double> reference_logits(const model::ModelDescription& model, const ModelStep& step,
                                     Activations activations = Activations::exact, int position_shift = 0);

}  // namespace vktune::step
