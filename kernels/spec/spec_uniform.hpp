#pragma once
// A spec's uniform buffers ("role": "uniform"): tensor metadata (sizes,
// strides, scales) that a shader reads from a uniform block rather than
// push constants, as many engines' shaders do. Their members are
// expressions of the shape, laid out in std140 and written by the host for
// each problem; the harness binds them as uniform buffers.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.hpp"
#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// Fills `b` (name and binding already read) from a uniform buffer's entry:
// its members in std140 order. Fails naming the field for `size`, `type` or
// `init` (a uniform block's size is its members'), an unknown member type, a
// value of the wrong arity, a repeated name, or a block past kMaxUniformBytes.
void read_uniform_buffer(const Node& node, const Scope& dims, BufferSpec& b);

// The block's bytes at `shape` (`values` the spec's full scope with the
// shape's dimensions set); Error(usage) "FILE: /buffers/I/members/J/value:
// ..." where a lane is not a whole number in its integer type's range or not
// a finite float.
std::vector<std::uint8_t> uniform_block(const Definition& d, const BufferSpec& b, const double* values,
                                        const Shape& shape);

// (binding, block bytes) of each uniform buffer, by binding: what a pipeline
// binds as VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER (ShaderPlan::uniform_buffers).
std::vector<std::pair<std::uint32_t, std::uint32_t>> uniform_bindings(const Definition& d);

// Uniform buffer `b` as a launch contract's binding: role uniform, its
// block's bytes as a constant size, and each lane of each member a word at
// its offset, carried as a push word is (spec_push_constants.hpp,
// carried_word). nullopt, with `unfit` the line that says why, where a lane
// is no word the contract can carry.
std::optional<Binding> uniform_contract_binding(const Definition& d, const BufferSpec& b, std::string& unfit);

}  // namespace vktune::kernels::spec
