#pragma once
// Exporters: the store's winners as the "vktune-table" JSON document (its
// schema is docs/TABLE_FORMAT.md), and what every exporter shares: which
// devices and kernels a filter selects, and the one stable order of rows.
//
// Other forms: results/export_header.hpp (a self-contained C++ header),
// results/export_csv.hpp (one row per measurement), results/import.hpp (a
// table merged back into a store).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/records.hpp"
#include "results/store.hpp"

namespace vktune::results {

inline constexpr std::string_view table_format_name = "vktune-table";
inline constexpr int table_format_version = 2;  // 2: launch contracts, "spirv" by hash, entry_hash
inline constexpr int oldest_table_format_version = 1;

// "vktune X.Y.Z": the program that wrote a table.
std::string generator_version();

// What `vktune export --device/--kernel` select.
struct ExportFilter {
  // "" = every device. All digits: the store's device row id. Otherwise a
  // case-insensitive substring of the device name.
  std::string device;
  // "" = every kernel. The exact name when a kernel of that name is stored,
  // otherwise every kernel whose name contains the text.
  std::string kernel;
  // Non-empty: only winners of these (kernel, shape) pairs, e.g. the ops of
  // one model (`vktune export --model`). Shapes as "1,4096,4096".
  std::vector<std::pair<std::string, std::string>> kernel_shapes{};
};

// The devices and kernels a filter selected; devices in table order.
struct Selection {
  std::vector<std::pair<std::int64_t, DeviceIdentity>> devices;
  std::vector<std::string> kernels;  // sorted
  std::vector<std::pair<std::string, std::string>> kernel_shapes;  // empty = every shape (ExportFilter)

  bool has_device(std::int64_t id) const;
  bool has_kernel(std::string_view name) const;
  // Position of a device in `devices`; devices.size() when absent.
  std::size_t device_rank(std::int64_t id) const;
};

// Throws Error(usage) naming what exists when a non-empty filter matches nothing.
Selection select(const Store& store, const ExportFilter& filter);

// The table order: devices by (vendor id, device id, name, driver version,
// UUID); shapes dimension by dimension as numbers ("2,8" before "16,8").
bool identity_less(const DeviceIdentity& a, const DeviceIdentity& b);
bool shape_less(std::string_view a, std::string_view b);
// "1,4096,4096" -> {1, 4096, 4096}; nullopt unless it is comma-separated
// unsigned 32-bit numbers.
std::optional<std::vector<std::uint32_t>> shape_dims(std::string_view text);

// The selected winners (with SPIR-V), ordered by device, kernel, shape, cache mode.
std::vector<Winner> selected_winners(const Store& store, const Selection& selection);

nlohmann::json to_json(const DeviceIdentity& device);
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const Winner& winner, bool with_spirv = true);

// A winner's contract JSON text, or nullopt with `why` (a winner stored
// before contracts whose kernel cannot complete it). The tuner supplies one
// that asks the kernel (engine/contract_json.hpp); without one, winners that
// store no contract are skipped.
using ContractSource = std::function<std::optional<std::string>(const Winner& winner, std::string& why)>;

// The tuned table (version 2) of the selected winners, their variants'
// template and compiler, their contracts, the SPIR-V of every stage once by
// hash, and the devices (with ceilings) they refer to. Object keys are
// sorted, so table.dump(2) of the same store is the same bytes every time.
// A winner without a contract is left out and named in `skipped`.
nlohmann::json export_table(const Store& store, const ExportFilter& filter = {}, const ContractSource& contracts = {},
                            std::vector<std::string>* skipped = nullptr);

// The keys (kernel, shape, cache mode) of a table that hold winners of more
// than one physical GPU of one model (vendor and device id), each as
// "KERNEL SHAPE MODE on NAME (N GPUs)", in table order. The runtime library
// serves the newest of them where none is the asking GPU's own, as
// `vktune step` does; `vktune import --newest-per-model` keeps the newest
// alone.
std::vector<std::string> keys_of_several_gpus_of_one_model(const nlohmann::json& table);

// The integrity hash of a version-2 winner: the content hash of its device's
// JSON text and its own (compact, sorted keys; without the document-local
// "id" and "device" references and without "entry_hash"), joined by a
// newline. The runtime recomputes it with the same text
// (results/table_format.hpp).
std::string table_entry_hash(const nlohmann::json& device, const nlohmann::json& winner);

// Standard base64 (with padding) of SPIR-V words as little-endian bytes, and back.
std::string spirv_to_base64(std::span<const std::uint32_t> words);
std::vector<std::uint32_t> spirv_from_base64(std::string_view text);  // throws Error(format) on bad input

// Shortest text that reads back as the same double (std::to_chars).
std::string shortest(double value);

}  // namespace vktune::results
