#pragma once
// The CPU reference of a decode step (tuner/step/decode_step.hpp): the same
// chain in double precision from the same weights, token and cache, each
// op's result stored as fp32 (and the new k and v as fp16) as the GPU chain
// stores it between ops, so the two differ only by the kernels' own
// rounding.
#include <vector>

#include "tuner/model/model_description.hpp"
#include "tuner/step/decode_step.hpp"

namespace vktune::step {

// The logits (vocab values).
std::vector<double> reference_logits(const model::ModelDescription& model, const DecodeStep& step,
                                     std::uint32_t context);

}  // namespace vktune::step
