#pragma once
// The CPU reference of a decode step (workloads/llm/decode_step.hpp): the same
// chain in double precision from the same weights, token and cache, each
// op's result stored as fp32 (and the new k and v as fp16) as the GPU chain
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
#include "workloads/llm/decode_step.hpp"

namespace vktune::step {

enum class Activations { exact, as_variants };

// The logits (vocab values).
std::vector<double> reference_logits(const model::ModelDescription& model, const DecodeStep& step,
                                     std::uint32_t context, Activations activations = Activations::exact);

}  // namespace vktune::step
