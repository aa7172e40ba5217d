#pragma once
// What a kernel is to vktune: a GLSL template plus a description of its
// parameter space, its shapes, its inputs and reference, and how to launch a
// variant. The tuner, harness and results layers know kernels only through
// this interface; adding a kernel means one template and one file here.
//
// Conventions every template follows:
//   - parameters arrive as #defines named as the Parameter names;
//   - buffers are storage buffers at set 0, bindings 0..n-1 in the order of
//     Problem::buffers (a spec's may make some uniform buffers:
//     ShaderPlan::uniform_buffers, some images: ShaderPlan::images, and bind
//     one buffer at several bindings: HostBuffer::alias_of);
//   - the shape arrives as push constants: one uint32 per shape dimension, in
//     the order of shape_dims() (so one SPIR-V serves every shape).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/violation.hpp"
#include "harness/device_info.hpp"
#include "harness/image_binding.hpp"
#include "kernels/launch_contract.hpp"
#include "kernels/prefix_checker.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::kernels {

// Parameter names in std::string's order, compared inline: enumeration looks
// names up in every config it checks (attention_decode: some 30,000 a
// shape, a dozen rules each), and a call to memcmp per compare of names
// that differ within their first characters cost more than the compare
// (a third of enumeration's time). Transparent, so find() takes any view.
struct NameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    const std::size_t n = a.size() < b.size() ? a.size() : b.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    }
    return a.size() < b.size();
  }
};

using Config = std::map<std::string, int, NameLess>;  // parameter name -> value

struct Parameter {
  std::string name;
  std::vector<int> values;  // candidates
  std::string help;
};

// One path through a space: a template path (attention_decode's walk,
// tensor-core and streaming paths; a quantized layout) and the parameters it
// varies, each with the values it takes on this path (a subset of the
// space's). Every other parameter of the space is pinned at `pinned`'s value:
// the path selectors (MMA=1) and values this path does not read, which stay
// in the config and the defines so that stored variants keep their hashes.
//
// A path also states launch facts that differ between paths: the shape
// dimensions its SPIR-V is compiled for (a variant serves only shapes equal
// to its tuned shape there), and the bindings its dispatches never touch
// (their contract asks for a minimal buffer).
struct Path {
  std::string name;  // "walk", "tensor-cores"
  std::vector<Parameter> parameters{};
  Config pinned{};
  std::vector<int> specialized_dims{};
  std::vector<std::string> unused_bindings{};
  // Its products run on the tensor cores: its share of the device's peak is
  // of the tensor-core ceiling, even where it runs slower than the FMA one.
  bool tensor_cores = false;
  // What the correctness gate's covering array (tuner/covering.hpp) takes of
  // the path: 2 = every pair of values of two parameters; 1 = every value of
  // each, for a path that runs another kernel's path but for one part (how
  // its activations are read or stored), whose own gate takes the pairs.
  unsigned covering_strength = 2;
};

// The devices a pruning rule was measured on: every device (vendor_id 0) or
// one vendor's, optionally only those whose name contains `name_contains`.
// A filter over devices, not a device's identity (that is the runtime's
// rules::DeviceKey, which a table lookup matches devices by).
struct DeviceFilter {
  std::uint32_t vendor_id = 0;
  std::string name_contains;
  bool matches(const vk::DeviceInfo& device) const;
  std::string describe() const;  // "every device", "NVIDIA (0x10de)"
};

// PCI vendor ids of the devices pruning rules have been measured on.
constexpr std::uint32_t kVendorNvidia = 0x10de;

// A rule that drops legal configs which are not worth measuring, with the
// evidence for it. Legality (device limits, correctness preconditions) is
// constraint_violation's; pruning only narrows a search, it is listed by
// `vktune list`, and `--space full` turns every rule off. A rule drawn from
// measurements on one GPU is keyed to that GPU's vendor (or name), so that
// other GPUs search the whole legal space.
struct PruningRule {
  std::string name;    // "walk.wg256-winners-only"
  std::string reason;  // one line: what was measured, where
  DeviceFilter measured_on;
  std::function<bool(const Config& config, const Shape& shape)> prunes;
};

// A kernel's parameters for one regime (matrix-vector for decode, tiled for
// prefill), chosen by shape. A kernel may have several spaces.
struct Space {
  std::string name;           // "decode", "prefill"
  std::string template_file;  // e.g. "matvec_q4k.comp" under templates/
  // Every parameter a config of this space carries, in define order, with
  // all its candidate values on any path.
  std::vector<Parameter> parameters;
  // The template paths; empty means one path that varies every parameter.
  std::vector<Path> paths{};
  // Values the shape sets rather than the search (grouped-query heads per
  // workgroup, ...): a config carries them, no path varies them.
  std::function<Config(const Shape& shape)> shape_values{};
  std::vector<PruningRule> pruning{};
  // The shapes this space serves (Kernel::space_index picks the first space
  // whose class holds the shape); empty = every shape.
  ShapeClass shape_class{};
  // The storage buffers of every variant, in binding order, with their roles
  // and sizes; make_problem's buffers follow it (the contract suite checks).
  std::vector<Binding> bindings{};
  // The push-constant layout every variant's stages receive, as data the
  // launch contract carries; empty = the shape, one word per dimension (what
  // the built-in kernels' templates declare).
  std::vector<PushWord> push_constants{};
  // Which of the words every stage receives are IEEE floats (a spec's
  // "type": "f32"), by word; empty = none (integers, as the shape). What the
  // interface check holds a shader's push-constant members to.
  std::vector<bool> float_push_words{};
  // The same for each uniform buffer of a spec: (binding, which 32-bit
  // words of its block are floats), what the interface check holds the
  // shader's uniform members to.
  std::vector<std::pair<std::uint32_t, std::vector<bool>>> float_uniform_words{};
  // Why no launch contract can carry the kernel (a spec's push word that is
  // not a polynomial over the shape, or a uniform buffer): its variants
  // tune, check and benchmark, but no launch contract is written for them
  // and no winner is stored. "" = the contract carries it.
  std::string contract_unfit{};

  // The paths, with the implicit single path spelled out.
  std::vector<Path> effective_paths() const;
  // The path a config of this space belongs to: the first whose pinned
  // values it carries and whose parameters take its values; nullptr if none.
  const Path* path_of(const Config& config) const;
};

// Workgroups along one axis: ceil(shape[shape_dim] / divisor), or 1 when
// shape_dim < 0. A rule simple enough for the runtime library to evaluate.
//
// `fold` (0 = none) caps the axis at that many workgroups, for counts past
// what one axis may dispatch (65,535 is all Vulkan guarantees): the next axis
// then carries the rest as an ordinary rule, {shape_dim, divisor * fold}
// (saturated at 2^32-1, which divides every 32-bit dimension into one), since
// ceil(ceil(n / q) / F) = ceil(n / (q * F)). The shader recovers its index as
// gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x and guards it.
struct DispatchAxis {
  int shape_dim = -1;
  std::uint32_t divisor = 1;
  std::uint32_t fold = 0;
};
// The divisor of the axis that carries what a fold of `fold` leaves over.
std::uint32_t folded_divisor(std::uint32_t divisor, std::uint32_t fold);
using DispatchRule = std::array<DispatchAxis, 3>;
std::array<std::uint32_t, 3> workgroup_counts(const DispatchRule& rule, const Shape& shape);

// Everything needed to build and launch one variant.
struct ShaderPlan {
  std::string template_file;
  std::vector<std::pair<std::string, std::string>> defines;
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  std::uint32_t required_subgroup_size = 0;  // 0 = the device's choice
  bool require_full_subgroups = false;
  DispatchRule dispatch;
  std::uint32_t shared_memory_bytes = 0;  // what the template declares, for limits
  // The push-constant words of this launch, for kernels with a layout of
  // their own (a spec file's); empty = the shape, one word per dimension
  // (the convention above).
  std::vector<std::uint32_t> push_constants{};
  // Specialization constants (constant_id, the parameter's integer value as
  // 32 bits), sorted by id: a spec file's parameters delivered that way (a
  // template with layout(constant_id = N) or local_size_x_id). The type the
  // module declares (float, bool) is applied where the SPIR-V is at hand:
  // pipeline creation and the contract a winner stores. vktune's own
  // templates take #defines and leave this empty.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> specialization{};
  // (binding, bytes of its block) of each binding that is a uniform buffer
  // (a spec's "role": "uniform"), sorted by binding; every other binding is
  // a storage buffer (the convention above). Empty for vktune's own kernels.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> uniform_buffers{};
  // The bindings that are images (a spec's "image" field), sorted by
  // binding, with their extents at this plan's shape: the pipeline binds a
  // storage image or a combined image sampler there, and the buffer of that
  // binding (HostBuffer::image) only carries its texels in and out.
  std::vector<vk::ImageBinding> images{};
};

struct HostBuffer {
  std::string name;
  std::vector<std::uint8_t> bytes;  // initial contents (inputs) or size (output)
  bool is_output = false;
  // Weights are copied several times for cold-cache timing, and the copies
  // rotated between dispatches so that no copy is still in cache.
  bool is_weights = false;
  // >= 0: this binding binds the buffer of binding `alias_of` (a spec's
  // "alias_of": two views of one buffer); it holds no bytes of its own, and
  // the device problem makes no buffer for it.
  int alias_of = -1;
  // The binding is an image: `bytes` are its texels, tightly packed (x
  // fastest, then y, then z), copied into the image before a run and, for
  // an output, back out after it, so that poisoning, guard bands and the
  // comparison with `expected` (in texel order too) work as for a buffer.
  std::optional<vk::ImageBinding> image{};
};

using ref::InputKind;

// Which instance of a kernel's computation to make: its seed, what its
// inputs look like (reference/random_blocks.hpp), and whether the reference
// must cover every output even where a kernel would otherwise sample it (the
// final check of a winner). A bare seed converts: make_problem(shape, 7).
struct Inputs {
  Inputs(std::uint64_t s, InputKind k = InputKind::random, bool full = false)  // NOLINT: implicit on purpose
      : seed(s), kind(k), full_reference(full) {}
  std::uint64_t seed;
  InputKind kind;
  bool full_reference;
};

// A concrete instance of the kernel's computation with the reference answer.
struct Problem {
  Shape shape;
  std::vector<HostBuffer> buffers;  // binding order
  std::size_t output_index = 0;     // which buffer holds the fp32 result
  // A kernel with several outputs (add_rmsnorm_mul writes the sum and its
  // norm) names the others here: each is compared as well, its expected
  // values following the previous output's in `expected`, one per element
  // of its buffer, of the same element type as the first.
  std::vector<std::size_t> more_outputs;
  // Reference output, one per output float. For shapes whose full reference
  // would take too long on the CPU, a kernel may compute a sample of it and
  // leave NaN elsewhere: those outputs are only required to be finite (so an
  // unwritten, still-poisoned element is caught all the same).
  std::vector<double> expected;
  // The output holds fp16 values (a cache written by the kernel): it is
  // poisoned with fp16 NaNs and read back as floats, exactly.
  bool output_f16 = false;
};

// An expected value meaning "the kernel must leave this output element as it
// was" (a cache row no new token goes to): it must still hold the poison
// written before the launch. A NaN with its own payload, so it never arises
// from arithmetic.
double untouched();
bool is_untouched(double expected);

// Accuracy required of a variant, against the double-precision reference.
struct Tolerance {
  double rel_l2 = 1e-5;   // ||y - ref||_2 / ||ref||_2
  double max_rel = 1e-3;  // max |y - ref| / max |ref|
};

// The least work a shape needs, for GB/s and GFLOP/s.
struct Metrics {
  double bytes = 0;
  double flops = 0;
};

// A reference that runs on the device, for a kernel whose reference is
// another shader rather than vktune's CPU library: a trusted config of its
// own space (the way CLBlast checks against its default parameters) or a
// reference kernel. Its stages, launched once per problem over the
// problem's own buffers, write the expected output.
struct DeviceReference {
  std::string description;      // "the trusted config ITEMS=1,WG_SIZE=64"
  std::optional<Config> config;  // a trusted config: the kernel's legality applies to it
  std::vector<ShaderPlan> stages;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<std::string> shape_dims() const = 0;  // e.g. {"M", "N", "K"}
  // Throws Error(usage) naming what is wrong with the shape.
  virtual void validate_shape(const Shape& shape) const = 0;
  virtual std::vector<Shape> default_shapes() const = 0;
  virtual std::vector<Shape> check_shapes() const = 0;  // small, for the CI gate
  // Built once, on first use, by build_spaces; enumerations call this for
  // every config, so it must not rebuild anything.
  const std::vector<Space>& spaces() const;
  // The first space whose shape class holds the shape (Space::shape_class):
  // the one rule the tuner, bench, exporters and runtime all read.
  std::size_t space_index(const Shape& shape) const;
  // A sensible untuned default, what a careful engineer would pick by hand.
  virtual Config baseline(const Shape& shape) const = 0;
  // Empty when the config is legal on this shape and device, else why not:
  // the id of the rule it breaks (kernels/legality.hpp, or the kernel
  // family's own) and the detail. The rules are device limits, what the
  // templates implement, and configs that would build another config's code;
  // never a judgement of speed (that is pruning, Space::pruning).
  virtual Violation constraint_violation(const Config& config, const Shape& shape,
                                         const vk::DeviceInfo& device) const = 0;
  virtual ShaderPlan plan(const Config& config, const Shape& shape) const = 0;
  // Every dispatch of a variant, in order; all stages bind the same buffers
  // (Space::bindings) and receive the shape as push constants, with a
  // compute-to-compute barrier between them. One stage (plan) unless a
  // kernel's path splits its work (a dequantization before a GEMM, a merge
  // after split attention).
  virtual std::vector<ShaderPlan> stages(const Config& config, const Shape& shape) const {
    return {plan(config, shape)};
  }
  // A kernel with a device reference leaves Problem::expected empty; the
  // tuner fills it (engine/device_reference.hpp).
  virtual Problem make_problem(const Shape& shape, const Inputs& inputs) const = 0;
  // nullopt (the default): make_problem computes the expected output on the CPU.
  virtual std::optional<DeviceReference> device_reference(const Shape& shape) const {
    static_cast<void>(shape);
    return std::nullopt;
  }
  virtual Tolerance tolerance(const Shape& shape) const = 0;
  // The accuracy one variant must reach: the kernel's, unless its variants
  // differ in numerics (a kernel offering 8-bit activations as a parameter
  // value documents and returns their looser bound here).
  virtual Tolerance variant_tolerance(const Config& config, const Shape& shape) const {
    static_cast<void>(config);
    return tolerance(shape);
  }
  // A config stored under parameter names this kernel no longer uses,
  // translated to the config of today that builds the same shader; nullopt
  // (the default) where none does. engine/stale_config.hpp tries it before
  // calling a config stale.
  virtual std::optional<Config> from_earlier_vocabulary(const Config& config, const Shape& shape) const {
    static_cast<void>(config);
    static_cast<void>(shape);
    return std::nullopt;
  }
  virtual Metrics metrics(const Shape& shape) const = 0;
  // Device memory one problem instance needs (one copy of every buffer).
  virtual std::uint64_t device_bytes(const Shape& shape) const = 0;
  // Optional, for enumeration (kernels/prefix_checker.hpp): a checker of
  // `path`'s configs at `shape` on `device` that decides each rule at the
  // shortest prefix of parameters it reads, applying the pruning rules in
  // `pruning` (those active on the device) and every legality check of
  // constraint_violation. It must keep exactly the configs that
  // config-by-config checking keeps. nullptr (the default) = check config
  // by config. One checker serves one thread.
  virtual std::unique_ptr<PrefixChecker> prefix_checker(const Path& path, const Shape& shape,
                                                        const vk::DeviceInfo& device,
                                                        const std::vector<const PruningRule*>& pruning) const {
    static_cast<void>(path), static_cast<void>(shape), static_cast<void>(device), static_cast<void>(pruning);
    return nullptr;
  }

 protected:
  virtual std::vector<Space> build_spaces() const = 0;

 private:
  mutable std::once_flag spaces_built_;
  mutable std::vector<Space> spaces_;
};

// Why `plan` cannot run on `device` for `shape`, or no violation when it
// can: local size, subgroup request, shared memory and workgroup counts, for
// a kernel with `buffers` storage buffers and one push-constant word per
// shape dimension (the conventions above). Kernels call it from
// constraint_violation.
Violation plan_limits_violation(const ShaderPlan& plan, const Shape& shape, std::uint32_t buffers,
                                const vk::DeviceInfo& device);

// plan_limits_violation for every stage of a variant (Kernel::stages), the
// first violation's detail naming its stage when there are several.
Violation stages_limits_violation(const std::vector<ShaderPlan>& stages, const Shape& shape, std::uint32_t buffers,
                                  const vk::DeviceInfo& device);

// "1,4096,4096"
std::string shape_to_string(const Shape& shape);
// Parses "M,N,K" style text with exactly `dims` positive integers; throws
// Error(usage) naming the problem.
Shape parse_shape(const std::string& text, std::size_t dims);
// Canonical JSON object with sorted keys: {"ROWS":2,"WG":64}
std::string config_to_json(const Config& config);
Config config_from_json(const std::string& json);
// "ROWS=2 WG=64"
std::string config_to_string(const Config& config);

// Whether `config` runs on a tensor-core path of `kernel`'s space at `shape`
// (Path::tensor_cores); false for a config no path holds.
bool on_tensor_cores(const Kernel& kernel, const Config& config, const Shape& shape);

}  // namespace vktune::kernels
