#pragma once
// vktune runtime: load a tuned table and answer "what do I run for (device,
// kernel, shape)": the variant's launch contract — its stages (SPIR-V, local
// size, subgroup size, workgroup counts), its bindings with their roles and
// sizes, and what it needs from the device. An application links this
// library alone: it needs neither shaderc nor the tuner, and it never calls
// Vulkan (vktune_runtime_vulkan.hpp turns an answer into pipelines and
// dispatches). C++17.
//
//   auto table = vktune::runtime::Table::open("tuned.json");   // or a vktune .db
//   vktune::runtime::Query query{device, "matmul_q4k", {1, 4096, 4096}};
//   auto found = table.lookup(query, my_baseline);
//   // found.contract.stages, found.workgroups, found.binding_bytes,
//   // found.push_constants, found.match, found.explain
//
// Sources: an exported JSON table ("format": "vktune-table", versions 1 and
// 2, docs/TABLE_FORMAT.md) or a vktune SQLite database (schema versions
// 1..4, opened read-only). Anything malformed, truncated, of another version
// or failing its integrity hash is an Error naming the file, the entry and
// the field; the table is validated whole when it is opened, so lookups never
// meet a broken entry.
//
// The rules (device levels, shape classes, distance, tie-breaks, device
// needs) are runtime/lookup_rules.inc, which the exported header compiles
// too; runtime/README.md states them in prose.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::runtime {

namespace rules {
#include "lookup_rules.inc"
}  // namespace rules

namespace detail {
struct TableData;
}

using Shape = std::vector<std::uint32_t>;

// The one exception type of the runtime. Its message names the file (when
// there is one) and what is wrong with it.
class Error : public std::runtime_error {
 public:
  enum class Kind {
    io,        // the file cannot be read
    format,    // malformed, truncated or corrupt table
    version,   // a table format or schema version this runtime does not read
    usage,     // a bad argument (empty kernel name, zero shape dimension, ...)
    no_match,  // nothing in the table fits and no baseline was given
  };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A Vulkan device as vktune keys it (VkPhysicalDeviceProperties: vendorID,
// deviceID, driverVersion, deviceName; VkPhysicalDeviceIDProperties:
// deviceUUID as lowercase hex, "" when unknown).
struct DeviceIdentity {
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t driver_version = 0;
  std::string name{};
  std::string uuid{};
};
bool operator==(const DeviceIdentity& a, const DeviceIdentity& b);

// What a device offers that variants may need: the optional features it has
// enabled and the subgroup operations it supports in compute (the names
// required_features() spells: Vulkan feature members, "subgroup_*") and its
// limits. `known` false (the default): nothing is checked.
struct DeviceCapabilities {
  bool known = false;
  std::vector<std::string> features{};
  std::uint32_t max_shared_memory_bytes = 0;
  std::uint32_t max_invocations = 0;
  std::uint32_t min_subgroup_size = 0, max_subgroup_size = 0;
  bool subgroup_size_control = false;
  // maxPushConstantsSize; 0 = unknown (not checked): an entry pushing more
  // words than it holds is skipped.
  std::uint32_t max_push_constant_bytes = 0;
};

// See lookup_rules.inc.
std::string name_family(std::string_view device_name);
bool same_architecture(const DeviceIdentity& a, const DeviceIdentity& b);

// Sum over dimensions of |log2(a_i / b_i)|. Throws Error(usage) when the
// dimension counts differ or a dimension is 0.
double shape_distance(const Shape& a, const Shape& b);

// Workgroups along one axis: ceil(shape[shape_dim] / divisor), or 1 when
// shape_dim < 0. `fold` > 0 caps the axis at that many (a count past the
// 65,535 workgroups an axis is guaranteed, folded into the next axis, which
// then reads {shape_dim, divisor * fold}: the shader's index is
// gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x); 0 = unfolded.
struct DispatchAxis {
  int shape_dim = -1;
  std::uint32_t divisor = 1;
  std::uint32_t fold = 0;
};
inline bool operator==(const DispatchAxis& a, const DispatchAxis& b) {
  return a.shape_dim == b.shape_dim && a.divisor == b.divisor && a.fold == b.fold;
}
using DispatchRule = std::array<DispatchAxis, 3>;

// Throws Error(usage) when an axis names a dimension the shape lacks or has a
// zero divisor.
std::array<std::uint32_t, 3> workgroup_counts(const DispatchRule& rule, const Shape& shape);

// The optional Vulkan device features a SPIR-V module needs enabled, from its
// OpCapability instructions, as the feature members' names:
// "shaderIntegerDotProduct" (8-bit integer dot products, e.g. the quantized
// kernels' X_QUANT=1 variants), "shaderInt8", "shaderInt16", "shaderFloat16",
// "shaderFloat64", "storageBuffer8BitAccess", "storageBuffer16BitAccess",
// "uniformAndStorageBuffer16BitAccess", "vulkanMemoryModel" and
// "cooperativeMatrixNV" (VK_NV_cooperative_matrix's cooperativeMatrix),
// "cooperativeMatrixKHR" (VK_KHR_cooperative_matrix's, for a module vktune
// compiled for a device that offers only that extension);
// and the subgroup operations it uses, which a device has or lacks rather
// than enables (VkPhysicalDeviceSubgroupProperties::supportedOperations, in
// the compute stage): "subgroup_basic", "subgroup_vote",
// "subgroup_arithmetic", "subgroup_ballot", "subgroup_shuffle",
// "subgroup_shuffle_relative", "subgroup_clustered", "subgroup_quad".
// Capabilities every Vulkan compute device has (Shader) add nothing. Sorted,
// without duplicates. Throws Error(format) when the words are not a SPIR-V
// module.
std::vector<std::string> required_features(const std::vector<std::uint32_t>& spirv);

// A specialization constant: its constant_id and its 32-bit value (integers
// as uint32, booleans as 0/1, floats as the bits of a 32-bit float).
struct SpecializationConstant {
  std::uint32_t id = 0;
  std::uint32_t value = 0;
};
inline bool operator==(const SpecializationConstant& a, const SpecializationConstant& b) {
  return a.id == b.id && a.value == b.value;
}

// One dispatch of a variant.
struct Stage {
  std::vector<std::uint32_t> spirv{};                     // SPIR-V words, native order
  std::vector<SpecializationConstant> specialization{};  // sorted by id
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  DispatchRule dispatch{};
  std::uint32_t required_subgroup_size = 0;  // 0 = the device's choice
  bool require_full_subgroups = false;       // VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT
  std::uint32_t shared_memory_bytes = 0;     // what the shader declares (0 in version-1 tables: unknown)
};

// What a buffer is to the application: data it provides per call (input),
// data it uploads once (weights), what it reads back (output), memory only
// the dispatches use (scratch: allocate it, zero it once), or a uniform
// buffer holding the bytes the contract computes for the shape (uniform:
// LookupResult::uniform_blocks; bind it as VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER).
// The others are storage buffers.
enum class BindingRole { input, weights, output, scratch, uniform };
const char* to_string(BindingRole role);

// bytes = ceil(sum_t coefficient_t * prod(shape[dims_t]) / divisor), rounded
// up to a multiple of align.
struct SizeTerm {
  std::uint64_t coefficient = 0;
  std::vector<int> dims{};
};
struct SizeRule {
  std::vector<SizeTerm> terms{};
  std::uint64_t divisor = 1;
  std::uint64_t align = 4;
  std::uint64_t bytes(const Shape& shape) const;  // Error(usage) for a dimension the shape lacks
};

// One 32-bit push-constant word of a variant whose shader declares a layout
// of its own (a spec file's push_constants): ceil(sum_t coefficient_t *
// prod(shape[dims_t]) / divisor) (value.align is 1), or an expression of
// the shape's dimensions ("1 / sqrt(head_dim)", "1e-5"; the language of
// runtime/src/word_expression.inc), pushed as its type says.
struct PushWord {
  std::string name{};  // "width"
  SizeRule value{};    // unused where `expression` is set
  std::string type = "u32";  // "u32", "i32" (two's complement) or "f32" (a float's bits)
  std::string expression{};  // "" = `value`; names the contract's shape_dims
};

// One 32-bit word of a uniform block: a push-constant word at a byte offset.
struct UniformWord {
  std::uint32_t offset = 0;
  PushWord word{};
};

// A buffer at set 0, binding = its index in Contract::bindings.
struct Binding {
  std::string name{};
  BindingRole role = BindingRole::input;
  SizeRule size{};
  // >= 0: bind the buffer (and range) of binding `alias_of` here too, as
  // another view of the same memory; role and size are the target's. -1:
  // a buffer of its own.
  int alias_of = -1;
  // Role uniform: the block's words (uniform_block computes its bytes).
  std::vector<UniformWord> members{};
};

// How to run one variant, and on what. Every stage binds all the bindings
// (one descriptor set layout) and receives the same push constants: the
// contract's push_constants words, or (none) the shape, one uint32 per
// dimension in shape order; a compute-to-compute memory barrier separates
// the stages.
struct Contract {
  std::string space{}, path{};              // the kernel's space and path ("decode", "x-q8"); "" when unknown
  std::vector<std::string> shape_dims{};  // dimension names, in shape order
  std::vector<rules::DimBound> shape_class{};  // the shapes it serves
  std::vector<int> specialized_dims{};    // dimensions the SPIR-V is compiled for (must equal the tuned shape's)
  std::vector<Binding> bindings{};        // empty in version-1 tables (unknown)
  std::vector<Stage> stages{};            // at least one
  std::vector<std::string> features{};    // device features the stages' SPIR-V needs (required_features)
  std::vector<PushWord> push_constants{};  // the push-constant layout; empty = the shape
};

// The push-constant words of `contract` for `shape`: its layout evaluated, or
// the shape itself when it has none. Throws Error(usage) for a word that
// names a dimension the shape lacks or exceeds 32 bits.
std::vector<std::uint32_t> push_constant_words(const Contract& contract, const Shape& shape);

// The bytes of uniform binding `binding` of `contract` for `shape`:
// size.bytes(shape) of them, each member word's bits at its offset
// (little-endian), zeros elsewhere; empty for a binding of another role.
// Throws Error(usage) as push_constant_words does, naming the binding.
std::vector<std::uint8_t> uniform_block(const Contract& contract, std::size_t binding, const Shape& shape);

// Every device feature a contract needs enabled: its SPIR-V's features, and
// subgroupSizeControl / computeFullSubgroups for stages that require a
// subgroup size or full subgroups. Sorted, without duplicates.
std::vector<std::string> device_features(const Contract& contract);

// A matmul_q6k_split winner's weight (binding W) in the layout it reads:
// `bytes` of GGUF Q6_K blocks (a matrix's, row by row as GGUF stores them,
// with up to 15 bytes of padding after them) rearranged, every block's 208
// bytes of codes and scales one after another, then every block's fp16 d in
// the same order (runtime/src/weight_layout.inc). Throws Error(usage) where
// the bytes are not whole blocks.
std::vector<std::uint8_t> to_q6_k_split(const std::uint8_t* bytes, std::size_t size);

// A device of the table, with the row id the source gave it.
struct TableDevice {
  std::int64_t id = 0;
  DeviceIdentity identity;
};

// One tuned winner.
struct Entry {
  std::size_t device = 0;  // index into Table::devices()
  std::string kernel{};
  Shape shape{};
  std::string cache_mode{};  // "cold" or "hot"
  std::string variant_hash{};
  std::string config_json{};  // the parameter values, as JSON text
  Contract contract{};
  double median_ns = 0, gbps = 0, gflops = 0, rel_l2_error = 0;
  std::string updated_at{};  // when it was measured, ISO 8601 UTC; "" when the table does not say
};

enum class Match {
  device_and_driver,  // same physical GPU and driver
  device,             // same physical GPU, other driver
  model,              // same model, another physical GPU
  architecture,       // same vendor and architecture
  vendor,             // any device of the vendor
  baseline,           // the caller's baseline
};
const char* to_string(Match match);  // "device_and_driver", ...

struct Query {
  DeviceIdentity device;
  std::string kernel{};
  Shape shape{};
  // Preferred measurement mode ("cold", "hot"); "" prefers "cold". Only a
  // tie-break: an entry of the other mode is still used.
  std::string cache_mode{};
  // The device's features and limits: an entry whose contract asks for more
  // is skipped (and `explain` says why). Unknown: nothing is checked.
  DeviceCapabilities capabilities{};
};

// Return false to reject an entry for the query's shape.
using Validity = std::function<bool(const Entry& entry, const Shape& shape)>;

struct LookupResult {
  Match match = Match::baseline;
  std::string match_text{};            // one line for logs: the level, the tuned device and shape
  std::vector<std::string> explain{};  // every level tried: what matched, what was skipped and why
  bool exact_shape = false;
  Shape tuned_shape{};          // the shape the variant was tuned for; empty for the baseline
  double shape_distance = 0;  // shape_distance(query.shape, tuned_shape); 0 for the baseline
  Contract contract{};          // what to run
  std::vector<std::array<std::uint32_t, 3>> workgroups{};  // per stage, for query.shape
  std::vector<std::uint64_t> binding_bytes{};              // per binding, for query.shape
  const Entry* entry = nullptr;  // the table entry used (valid while the Table lives); nullptr for the baseline
  std::optional<DeviceIdentity> tuned_device;  // the device it was tuned on; empty for the baseline
  // The words every stage gets as push constants for query.shape
  // (push_constant_words): the shape itself unless the contract has a layout.
  std::vector<std::uint32_t> push_constants{};
  // Per binding, for query.shape: a uniform binding's block (uniform_block),
  // to upload into the buffer bound there; empty for the others.
  std::vector<std::vector<std::uint8_t>> uniform_blocks{};
};

// An opened table. Immutable once opened: lookups from several threads at
// once are safe.
class Table {
 public:
  // A JSON table or a vktune SQLite database, told apart by the file's first
  // bytes ("SQLite format 3").
  static Table open(const std::filesystem::path& path);
  static Table open_json(const std::filesystem::path& path);
  static Table open_sqlite(const std::filesystem::path& path);  // read-only
  // `source` names the text in error messages.
  static Table from_json_text(std::string_view text, const std::string& source = "JSON table");

  Table(Table&&) noexcept;
  Table& operator=(Table&&) noexcept;
  ~Table();

  const std::vector<TableDevice>& devices() const;
  const std::vector<Entry>& entries() const;
  const std::string& source() const;

  // The first device level (rules::Level) with an entry of the kernel that
  // serves the shape (rules::shape_mismatch), whose contract the device
  // satisfies (capabilities) and that `valid` accepts; within it the best
  // candidate (rules::better). Falls back to `baseline` when no entry fits;
  // throws Error(no_match) when there is no baseline either, and
  // Error(usage) for an empty kernel name, an empty shape or a zero dimension.
  LookupResult lookup(const Query& query, const std::optional<Contract>& baseline = std::nullopt,
                      const Validity& valid = {}) const;

 private:
  explicit Table(std::unique_ptr<detail::TableData> data);
  std::unique_ptr<detail::TableData> data_;
};

}  // namespace vktune::runtime
