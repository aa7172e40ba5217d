#pragma once
// A buffer's size as the launch contract carries it (kernels::SizeRule, a
// polynomial over the shape that a program without vktune evaluates): fitted
// to the spec's size expression and verified against it.
#include "kernels/launch_contract.hpp"
#include "kernels/spec/spec_definition.hpp"

namespace vktune::kernels::spec {

// Error(usage) naming the buffer's size field when its bytes are not a sum of
// whole-number multiples of products of distinct shape dimensions (over a
// GGUF block's weights), e.g. "rows * n", "n * k / 256 * 144", "4 + rows".
SizeRule fit_size_rule(const Definition& d, const BufferSpec& b);

}  // namespace vktune::kernels::spec
