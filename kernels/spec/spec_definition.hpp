#pragma once
// A kernel spec as data: what kernels/spec/spec_file.cpp reads from a JSON
// spec and SpecKernel (spec_kernel.hpp) serves through the Kernel interface.
// Every expression is already compiled; every name already resolved.
//
// Expressions evaluate from one array of values laid out as
// [shape dims..., parameters..., device facts...] (Layout), so an
// expression over the shape alone is compiled against the first names only
// and still reads the same array.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.hpp"
#include "kernels/spec/spec_expression.hpp"
#include "reference/gguf_types.hpp"

namespace vktune::kernels::spec {

// How a parameter reaches the template: as a #define of its name (the
// default), as a specialization constant (layout(constant_id = N), or
// local_size_x_id = N for a workgroup size), or both.
struct Delivery {
  std::optional<std::uint32_t> constant_id;
  bool define = true;
  // "define": "if_nonzero": `#define NAME value` only for a nonzero value, so
  // that a template's `#ifdef NAME` switch is off at 0.
  bool define_if_nonzero = false;
};

// A rule over parameters, the shape and (for legality) the device.
struct Rule {
  std::string name;     // pruning rules: "wide-rows-only"; legality: the JSON pointer
  std::string reason;   // one line
  std::string pointer;  // where in the spec
  Expression expression;
  DeviceFilter measured_on{};  // pruning rules only
};

// Workgroups along one axis: 1, or ceil(shape[dim] / per_workgroup), the
// form the launch contract carries as data (kernels::DispatchAxis). With
// `fold`, at most that many, the rest carried by the next axis, which the
// spec writes "folded" (`folded` here; it takes its rule from this one).
struct Axis {
  int dim = -1;
  std::shared_ptr<Expression> per_workgroup;  // over dims and parameters; null = 1
  std::shared_ptr<Expression> fold;           // over dims and parameters; null = unfolded
  bool folded = false;
};

struct Stage {
  std::string template_file;  // as the template library names it
  std::array<std::shared_ptr<Expression>, 3> local_size;
  std::array<Axis, 3> workgroups;
  std::shared_ptr<Expression> shared_memory_bytes;  // null = 0
  std::shared_ptr<Expression> subgroup_size;        // null = the device's choice
  std::shared_ptr<Expression> full_subgroups;       // nonzero: require full subgroups; null = 0
};

// One path of the spec (an entry of its "subspaces", which the format calls
// sub-spaces): a template path and the parameters and rules it has.
struct PathSpec {
  std::string name;
  std::string template_file;  // the stages' default, as the template library names it
  std::vector<Parameter> parameters;
  Config baseline;  // this sub-space's parameters only
  std::vector<std::pair<std::string, std::string>> defines;  // fixed, after the parameters
  std::vector<Rule> legality;
  std::vector<Rule> pruning;
  std::vector<Stage> stages;
  std::optional<Tolerance> tolerance;
  unsigned covering_strength = 2;  // "check_covering": "pairs" 2, "values" 1 (kernels::Path's)
};

// How a push-constant word's value is pushed: a 32-bit unsigned or signed
// integer, or the bits of the nearest 32-bit float.
enum class PushType { u32, i32, f32 };

struct PushConstant {
  std::string name;
  Expression value;  // over the shape; pushed as one 32-bit word of `type`
  PushType type = PushType::u32;
};

// A member of a uniform buffer ("role": "uniform"): a scalar or vector of
// 32-bit lanes at its std140 offset, each lane an expression of the shape
// converted as a push-constant word of the member's scalar type is (one
// conversion: push_word_bits).
struct UniformMember {
  std::string name;
  std::string type;  // as written: "u32", "vec2", "ivec4", ...
  std::uint32_t offset = 0;
  std::vector<PushConstant> lanes{};  // 1-4, one type
  std::vector<std::string> pointers{};  // per lane: "/buffers/2/members/0/value/1"
};

// The largest std140 block a spec's uniform buffer may fill: 16 KiB, the
// least maxUniformBufferRange the Vulkan specification lets a device offer,
// so that every device binds it whole.
inline constexpr std::uint32_t kMaxUniformBytes = 16384;

// A buffer's "image" field: the binding is a storage image or a sampled
// texture (combined image sampler) holding the logical tensor `tensor`
// ([C, H, W] or [N, C, H, W], expressions of the shape) in the
// channels-packed layout (kernels/spec/spec_image.hpp). The buffer's values
// are the logical tensor's, row-major, so that references read it as they
// read any buffer; only the device sees texels.
struct ImageSpec {
  vk::ImageKind kind = vk::ImageKind::storage;
  std::uint32_t dims = 3;
  vk::ImageFormat format = vk::ImageFormat::rgba32f;
  std::vector<Expression> tensor;
  // An output's padding channels (past C in the last texel of a slice):
  // false = they must be written 0, the layout's convention (the next
  // layer reads whole texels); true ("padding": "any") = any finite value.
  bool padding_any = false;
  std::string pointer;  // "/buffers/1/image"
};

enum class ElementType { f32, f16, i32, u32, i8, gguf };

enum class InitKind { uniform, normal, zeros, gguf_random, file };

struct BufferSpec {
  std::string name;
  std::uint32_t binding = 0;
  ElementType type = ElementType::f32;
  ref::GgmlType gguf = ref::GgmlType::F32;  // the block type when type == gguf
  BindingRole role = BindingRole::input;
  std::string pointer;  // "/buffers/1"
  Expression elements;  // over the shape: values (GGUF: weights)
  InitKind init = InitKind::uniform;
  double a = -1.0, b = 1.0;  // uniform [a, b), normal (mean a, deviation b)
  std::shared_ptr<const std::string> file_bytes{};  // InitKind::file: the contents, as read at load
  // "role": "uniform": a uniform buffer (descriptor type UNIFORM_BUFFER)
  // whose contents are `members` at the shape, laid out in std140. `role`
  // is then input (host data each problem), `type` u32 and `elements` the
  // block's words, so sizes and device bytes need no case of their own.
  bool uniform = false;
  std::vector<UniformMember> members{};
  std::uint32_t uniform_bytes = 0;  // the end of the last member: what a shader's block may declare
  // "alias_of": this binding binds the buffer of binding `alias_of` (named
  // `alias_name` in the spec), as another view of the same memory. Every
  // field above but name, binding and pointer is then the target's, so sizes
  // and checks read it as they read the target; the problem and the device
  // hold one buffer (HostBuffer::alias_of), and a reference names the target.
  std::string alias_name{};
  int alias_of = -1;
  // An image binding (null: a buffer): `type` is then f32 for rgba32f and
  // f16 for rgba16f, and `elements` the logical tensor's count.
  std::shared_ptr<const ImageSpec> image{};
};

// The most push-constant words a spec may declare: 256 bytes, what the
// largest common limits offer (NVIDIA, AMD, Intel); a device's own
// maxPushConstantsSize is a legality rule (push_constants.limit).
inline constexpr std::size_t kMaxSpecPushWords = 64;

// An array an element-wise expression names (a buffer, or a temporary of a
// composed reference) with its extents over the shape, outermost first
// (row-major): their product is the array's size at every shape.
struct ElementwiseArray {
  std::string name;
  int operand = -1;  // as ReferenceSpec::operands: a buffer, then the temporaries
  std::vector<Expression> extents;
  std::string pointer;  // "/reference/arrays/x"
};

// One read BUF[e1][e2]... of an element-wise expression, which its body
// calls as the function `kElementwiseRead` + its index in `reads`.
struct ElementwiseRead {
  std::size_t array = 0;  // into ElementwiseSpec::arrays
  std::string text;       // as written, for messages
};

// "y[r][c] = gelu_tanh(x[r][c] + b[c])": for every element of the array the
// left side names, the right side (a muparser expression over the shape's
// dimensions and the index names) in double.
struct ElementwiseSpec {
  std::string text;     // as written
  std::string pointer;  // "/reference/expression"
  std::vector<ElementwiseArray> arrays;
  std::size_t target = 0;            // the array the left side writes
  std::vector<std::string> indices;  // the left side's index names, outermost first
  std::string body;                  // the right side, each read a call
  std::vector<ElementwiseRead> reads;
};

// What a read of an element-wise expression is called in its body.
inline constexpr const char* kElementwiseRead = "__vktune_read_";

// An intermediate array of a composed reference, in double.
struct Temporary {
  std::string name;
  Expression size;  // values, over the shape
  std::string pointer;
};

// The spec's reference: a named op of vktune's reference library with its
// operands mapped to the spec's buffers and its sizes given as expressions
// over the shape; steps of such ops and element-wise expressions over the
// buffers and temporaries (composed); or, run on the device, a trusted
// config of the spec's own space or a reference kernel of the spec's own (a
// stage over the same buffers and push constants).
struct ReferenceSpec {
  // op: one op; composed: `steps` (each an op or an elementwise), the last
  // writing the output; a lone expression is a composed reference of one step.
  enum class Kind { op, config, kernel, composed, elementwise };
  Kind kind = Kind::op;
  Config trusted{};                                          // Kind::config: every parameter, PATH included
  std::shared_ptr<Stage> stage{};                            // Kind::kernel
  std::vector<std::pair<std::string, std::string>> defines{};  // Kind::kernel: its fixed #defines
  std::string op;                                        // "softmax", "rmsnorm", "matmul", ...
  // operand -> buffer index (-1 = absent); in a composed reference's steps,
  // buffers.size() + i names its temporary i.
  std::vector<std::pair<std::string, int>> operands;
  std::vector<std::pair<std::string, Expression>> sizes; // "n", "m", "k" -> expression
  double eps = 1e-5;
  bool relu6 = false;  // depthwise_conv2d, conv2d: the epilogue min(max(v, 0), 6)
  std::shared_ptr<const Expression> relu6_when{};  // conv2d: relu6 as an expression of the shape (nonzero: clamp)
  bool neox = false;   // rope: pair i is (x[i], x[i + head_dim/2]), not (x[2i], x[2i+1])
  double freq_base = 10000.0;  // rope: theta = p * freq_base^(-2i / head_dim)
  std::string pointer = "/reference";
  std::shared_ptr<const ElementwiseSpec> elementwise{};  // Kind::elementwise
  std::vector<ReferenceSpec> steps;                      // Kind::composed, in order
  std::vector<Temporary> temporaries;                    // Kind::composed
};

// Whether the reference is computed on the CPU (in double) rather than run on
// the device.
inline bool reference_on_cpu(const ReferenceSpec& r) {
  return r.kind == ReferenceSpec::Kind::op || r.kind == ReferenceSpec::Kind::composed;
}

struct Definition {
  std::string file;  // the spec's path, for messages
  std::string name;
  std::string description;
  std::vector<std::string> dims;
  std::vector<Shape> default_shapes;
  std::vector<Shape> check_shapes;
  std::vector<PathSpec> paths;  // the spec's "subspaces", one per template path
  std::vector<Parameter> parameters;  // every sub-space's, united, in first-seen order (+ PATH when several)
  std::vector<Delivery> delivery;     // per parameter, as `parameters`
  std::vector<BufferSpec> buffers;    // by binding, 0..n-1
  std::size_t output = 0;             // the output buffer's index
  std::vector<PushConstant> push_constants;
  std::shared_ptr<Expression> bytes, flops;
  std::vector<Rule> shape_rules;  // over the shape alone; a violated one rejects the shape
  ReferenceSpec reference;
  Tolerance tolerance;
  std::string text_hash;  // of the spec's text
  // Every name an expression may read, in evaluation order.
  Scope full_scope;
  std::size_t device_offset = 0;  // where the device facts start in full_scope
};

// The parameter that selects the sub-space when a spec has several.
inline constexpr const char* kPathParameter = "PATH";

// The device facts expressions may read, in their order after the parameters.
const std::vector<std::string>& device_fact_names();
// Their values for `device`, in that order.
std::vector<double> device_facts(const vk::DeviceInfo& device);
// The same, written to out[0 .. device_fact_names().size()).
void fill_device_facts(const vk::DeviceInfo& device, double* out);

}  // namespace vktune::kernels::spec
