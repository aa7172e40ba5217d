#pragma once
// The launch facts of a kernel that an application needs to run one of its
// variants without reading vktune's source, declared once by the kernel (its
// spaces) and read from there by the tuner, bench, the exporters and, through
// the exported contract, the runtime library (runtime/README.md).
//
// Everything here is data a reader can evaluate: buffer sizes are
// polynomials over the shape, the shapes a space serves are bounds per
// dimension. No callbacks, so a table carries them to a program that has
// never heard of the kernel.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::kernels {

using Shape = std::vector<std::uint32_t>;

// What a buffer is to the application: data it provides per call (input),
// data it uploads once (weights), what it reads back (output), memory only
// the variant's dispatches use (scratch: allocate it, zero it once, never
// read it), or a uniform buffer whose bytes the contract computes from the
// shape (uniform: Binding::members; the others are storage buffers).
enum class BindingRole { input, weights, output, scratch, uniform };
std::string_view to_string(BindingRole role);
// Throws Error(usage) for text that names no role.
BindingRole binding_role_from_string(std::string_view text);

// bytes = ceil(sum over terms of coefficient * prod(shape[dims]) / divisor),
// rounded up to a multiple of `align` (storage buffers hold whole 32-bit
// words, so an odd count of fp16 values takes one more half word).
// Enough for every layout vktune's kernels use (rows × columns × element
// size; GGUF blocks: N × K × block bytes / block weights; scratch with a
// constant part).
struct SizeTerm {
  std::uint64_t coefficient = 0;
  std::vector<int> dims;  // shape dimensions multiplied together; empty = a constant

  bool operator==(const SizeTerm&) const = default;
};

struct SizeRule {
  std::vector<SizeTerm> terms;
  std::uint64_t divisor = 1;
  std::uint64_t align = 4;

  std::uint64_t bytes(const Shape& shape) const;
  // "4*M*K", "144*N*K/256", "1024 + 4096*heads + 1024*heads*head_dim"
  std::string describe(const std::vector<std::string>& dim_names) const;
  bool operator==(const SizeRule&) const = default;
};

// `coefficient` bytes per element of the product of `dims`, divided by `divisor`.
SizeRule size_rule(std::uint64_t coefficient, std::vector<int> dims, std::uint64_t divisor = 1);
// The sum of two rules with the same divisor.
SizeRule operator+(SizeRule a, const SizeRule& b);

// One 32-bit push-constant word of a kernel with a layout of its own (a spec
// file's `push_constants`): ceil(sum of coefficient * product of dims /
// divisor), a SizeRule with align 1, so that "n", "rows * n", "1" and
// "ceil_div(n, 4)" travel as data the runtime evaluates for any shape; or,
// where the word is no such polynomial ("1 / sqrt(head_dim)", "1e-5",
// "min(n, 64)"), an expression of the shape's dimensions in the small
// language the runtime evaluates (runtime/src/word_expression.inc).
struct PushWord {
  std::string name;  // "width"
  SizeRule value;    // align 1; unused where `expression` is set
  std::string type = "u32";  // how the value is pushed: "u32", "i32" (two's complement) or "f32" (a float's bits)
  std::string expression{};  // "" = `value`
  std::vector<std::string> dims{};  // the shape's dimension names `expression` reads (the contract's shape_dims)

  bool operator==(const PushWord&) const = default;
};


// The words for `shape`, in order; empty `words` = the shape itself, one word
// per dimension (the convention of vktune's built-in kernels). Throws
// Error(usage) naming the word when one exceeds 32 bits.
std::vector<std::uint32_t> push_constant_words(const std::vector<PushWord>& words, const Shape& shape);

// One 32-bit word of a uniform block: a push-constant word placed at a byte
// offset (std140: a vector's lanes are words at consecutive offsets).
struct UniformWord {
  std::uint32_t offset = 0;
  PushWord word;

  bool operator==(const UniformWord&) const = default;
};

// One buffer at set 0, binding = its index in the kernel's list.
struct Binding {
  std::string name;  // "x", "W", "y", "scratch"
  BindingRole role = BindingRole::input;
  SizeRule size;
  // >= 0: this binding binds the buffer (and range) of binding `alias_of`,
  // as another view of it; role and size are the target's. -1: its own.
  int alias_of = -1;
  // Role uniform: the block's words, by offset; its bytes are `size` (a
  // constant), the words not listed zero.
  std::vector<UniformWord> members{};

  bool operator==(const Binding&) const = default;
};

// A uniform binding's block at `shape`: size.bytes(shape) bytes, each member
// word's bits at its offset (little-endian), zeros between. Throws
// Error(usage) naming the binding and the word where a value does not fit
// its type at the shape.
std::vector<std::uint8_t> uniform_block_bytes(const Binding& binding, const Shape& shape);

// The shapes a space serves: every listed dimension within [min, max]
// (inclusive); dimensions not listed are free. Decode spaces of the matrix
// products serve M <= 8, their prefill spaces M >= 9.
struct DimBound {
  int dim = 0;
  std::uint32_t min = 1;
  std::uint32_t max = std::numeric_limits<std::uint32_t>::max();

  bool operator==(const DimBound&) const = default;
};
using ShapeClass = std::vector<DimBound>;

bool in_shape_class(const ShapeClass& shape_class, const Shape& shape);
// "M <= 8", "M >= 9", "any shape"
std::string describe(const ShapeClass& shape_class, const std::vector<std::string>& dim_names);

}  // namespace vktune::kernels
