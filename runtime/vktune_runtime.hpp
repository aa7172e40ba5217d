#pragma once
// vktune runtime: load a tuned table and answer "which SPIR-V and launch
// parameters for (device, kernel, shape)". An application links this library
// alone: it needs neither shaderc nor the tuner, and it never calls Vulkan.
//
//   auto table = vktune::runtime::Table::open("tuned.json");   // or a vktune .db
//   vktune::runtime::Query query{device, "matmul_q4k", {1, 4096, 4096}};
//   auto found = table.lookup(query, my_baseline);
//   // found.variant.spirv, .specialization, .local_size, .required_subgroup_size,
//   // found.workgroups (for vkCmdDispatch), found.match / found.match_text
//
// Sources: an exported JSON table ("format": "vktune-table", "version": 1, see
// results/TABLE_FORMAT.md) or a vktune SQLite database (schema versions 1..3,
// opened read-only). Anything malformed, truncated or of another version is an
// Error naming the file and what is wrong; the table is validated completely
// when it is opened, so lookups never meet a broken entry.
//
// Lookup rules, in order (see Table::lookup):
//   device levels  1. same device and same driver  (vendor_id, device_id, name and driver_version equal)
//                  2. same device, other driver    (vendor_id, device_id and name equal)
//                  3. same vendor and architecture (same_architecture() below)
//                  4. vendor default               (any entry with the same vendor_id)
//                  5. the caller's baseline
//   shapes         within the first device level that has any usable entry: the
//                  exact shape, else the nearest tuned shape of the same regime
//                  (shape_regime()) by shape_distance(). Shapes of another regime
//                  or another number of dimensions are never used.
//   validity       every vktune kernel takes its shape in push constants, so a
//                  variant tuned for one shape runs correctly on any shape of the
//                  same regime (its dispatch rule covers the shape). The runtime
//                  relies on that; an entry whose dispatch rule names a dimension
//                  the shape lacks is skipped, and a caller that knows more can
//                  pass a Validity predicate to reject entries. One exception:
//                  attention_decode's variants are compiled for the shape's
//                  query heads per KV head (QH must divide heads/kv_heads) and,
//                  with MMA=1 or STREAM=1, its head_dim; the table does not say so yet, so
//                  a caller serving other head layouts than it tuned must pass
//                  a Validity predicate that keeps heads, kv_heads and head_dim
//                  equal to the entry's shape.
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::runtime {

namespace detail {
struct TableData;
}

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
// deviceID, driverVersion, deviceName).
struct DeviceIdentity {
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t driver_version = 0;
  std::string name;

  bool operator==(const DeviceIdentity&) const = default;
};

// The architecture family of a device name: the name up to and including its
// first decimal digit, ASCII-lowercased ("NVIDIA GeForce RTX 4090" ->
// "nvidia geforce rtx 4", "NVIDIA H100 80GB HBM3" -> "nvidia h1"); a name
// without digits is its own family (lowercased).
std::string name_family(std::string_view device_name);

// "Same vendor and architecture": equal vendor_id, and either the same
// name_family() or the same non-zero device-id high part (device_id >> 8,
// e.g. NVIDIA 0x2330 H100 and 0x2335 H200). A heuristic: it is only consulted
// after both exact-device levels found nothing.
bool same_architecture(const DeviceIdentity& a, const DeviceIdentity& b);

// The shape's regime. 3-dimensional shapes (matmul M,N,K) are decode
// (regime 0) when dims[0] <= 8 and prefill (regime 1) otherwise; shapes of any
// other number of dimensions have a single regime 0. Two shapes are
// comparable only with the same number of dimensions and the same regime.
int shape_regime(std::span<const std::uint32_t> shape);
const char* regime_name(std::span<const std::uint32_t> shape);  // "decode", "prefill" or "any"

// Sum over dimensions of |log2(a_i / b_i)|: 0 for equal shapes, 1 for one
// dimension doubled. Throws Error(usage) when the dimension counts differ or a
// dimension is 0.
double shape_distance(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);

// Workgroups along one axis: ceil(shape[shape_dim] / divisor), or 1 when
// shape_dim < 0.
struct DispatchAxis {
  int shape_dim = -1;
  std::uint32_t divisor = 1;

  bool operator==(const DispatchAxis&) const = default;
};
using DispatchRule = std::array<DispatchAxis, 3>;

// Throws Error(usage) when an axis names a dimension the shape lacks or has a
// zero divisor.
std::array<std::uint32_t, 3> workgroup_counts(const DispatchRule& rule, std::span<const std::uint32_t> shape);

// The optional Vulkan device features a SPIR-V module needs enabled, from its
// OpCapability instructions, as the feature members' names:
// "shaderIntegerDotProduct" (8-bit integer dot products, e.g. the quantized
// kernels' X_QUANT=1 variants), "shaderInt8", "shaderInt16", "shaderFloat16",
// "shaderFloat64", "storageBuffer8BitAccess", "storageBuffer16BitAccess",
// "uniformAndStorageBuffer16BitAccess", "vulkanMemoryModel" and
// "cooperativeMatrixNV" (VK_NV_cooperative_matrix's cooperativeMatrix).
// Capabilities every Vulkan compute device has (Shader, the subgroup
// operations) add nothing. Sorted, without duplicates. Throws Error(format)
// when the words are not a SPIR-V module.
std::vector<std::string> required_features(std::span<const std::uint32_t> spirv);

// A specialization constant: its constant_id and its 32-bit value (integers
// as uint32, booleans as 0/1, floats as the bits of a 32-bit float).
struct SpecializationConstant {
  std::uint32_t id = 0;
  std::uint32_t value = 0;

  bool operator==(const SpecializationConstant&) const = default;
};

// Everything needed to build and launch one compiled variant.
struct Variant {
  std::vector<std::uint32_t> spirv;  // SPIR-V words, native order
  std::vector<SpecializationConstant> specialization;  // sorted by id
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  DispatchRule dispatch{};
  std::uint32_t required_subgroup_size = 0;  // 0 = the device's choice
};

// A device of the table, with the row id the source gave it.
struct TableDevice {
  std::int64_t id = 0;
  DeviceIdentity identity;
};

// One tuned winner.
struct Entry {
  std::size_t device = 0;  // index into Table::devices()
  std::string kernel;
  std::vector<std::uint32_t> shape;
  std::string cache_mode;  // "cold" or "hot"
  std::string variant_hash;
  std::string config_json;  // the parameter values, as JSON text
  Variant variant;
  double median_ns = 0, gbps = 0, gflops = 0, rel_l2_error = 0;
};

enum class Match {
  device_and_driver,   // same device and driver
  device,              // same device, other driver
  architecture,        // same vendor and architecture
  vendor,              // vendor default
  baseline,            // the caller's baseline
};
const char* to_string(Match match);  // "device_and_driver", ...

struct Query {
  DeviceIdentity device;
  std::string kernel;
  std::vector<std::uint32_t> shape;
  // Preferred measurement mode ("cold", "hot"); "" prefers "cold". Only a
  // tie-break: an entry of the other mode is still used.
  std::string cache_mode;
};

// Return false to reject an entry for the query's shape.
using Validity = std::function<bool(const Entry& entry, std::span<const std::uint32_t> shape)>;

struct LookupResult {
  Match match = Match::baseline;
  std::string match_text;  // one line for logs: the level, the tuned device and shape
  bool exact_shape = false;
  std::vector<std::uint32_t> tuned_shape;  // the shape the variant was tuned for; empty for the baseline
  double shape_distance = 0;               // shape_distance(query.shape, tuned_shape); 0 for the baseline
  Variant variant;                          // what to run
  std::array<std::uint32_t, 3> workgroups{1, 1, 1};  // variant.dispatch evaluated for query.shape
  const Entry* entry = nullptr;             // the table entry used (valid while the Table lives); nullptr for the baseline
  std::optional<DeviceIdentity> tuned_device;  // the device it was tuned on; empty for the baseline
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

  std::span<const TableDevice> devices() const;
  std::span<const Entry> entries() const;
  const std::string& source() const;

  // The rules of this header's introduction. Among the candidates of the
  // chosen device level the smallest key wins: (shape distance, for level 2
  // the distance |driver_version - query driver_version|, cache-mode
  // preference, table order). Falls back to `baseline` when no entry fits;
  // throws Error(no_match) when there is no baseline either, and
  // Error(usage) for an empty kernel name, an empty shape or a zero dimension.
  LookupResult lookup(const Query& query, const std::optional<Variant>& baseline = std::nullopt,
                      const Validity& valid = {}) const;

 private:
  explicit Table(std::unique_ptr<detail::TableData> data);
  std::unique_ptr<detail::TableData> data_;
};

}  // namespace vktune::runtime
