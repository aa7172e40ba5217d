#pragma once
// A spec's buffers: reading their declarations, their sizes at a shape, and
// their initial contents for one problem instance.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// `read` finds a file an init of kind "file" names, beside the spec.
BufferSpec buffer_of(const Node& node, const Scope& dims,
                     const std::function<std::optional<std::string>(const std::string&)>& read);

// Points every alias (a buffer entry with "alias_of") at its target, by
// binding, and gives it the target's type, size, role and contents. Fails
// naming the alias's "alias_of" (exit 2) for a target no buffer is named, an
// alias of an alias, an alias of a uniform buffer (whose block the
// contract computes per binding: a second binding of it would be a second
// block) and an alias of an image (bound as an image, not a buffer). `top` is the spec's root, for the pointer.
void resolve_aliases(Definition& d, const Node& top);

// The values (GGUF: weights) buffer `b` holds at `shape`; Error(usage)
// naming the buffer's size field unless a whole positive number below 2^31
// (and for GGUF types a whole number of blocks).
std::uint64_t element_count(const Definition& d, const BufferSpec& b, const Shape& shape);
std::uint64_t buffer_bytes(const BufferSpec& b, std::uint64_t elements);

// Every size, push constant and metric at `shape`, and the shape rules: what
// a spec's kernel checks before any GPU work at a shape (with
// check_reference_sizes, spec_reference.hpp).
void check_sizes(const Definition& d, const Shape& shape, const Node& top);

// One buffer's contents for a problem, and (for float buffers) the float
// values a reference reads: f16 values exactly as stored.
struct BufferContents {
  HostBuffer host;
  std::vector<float> values;  // empty for GGUF, integer and output buffers
};
BufferContents make_contents(const BufferSpec& b, std::uint64_t elements, std::uint64_t seed, InputKind kind);

}  // namespace vktune::kernels::spec
