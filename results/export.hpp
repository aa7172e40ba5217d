#pragma once
// Exporters: the store's records as JSON and CSV text, for `--json`, for the
// tuned tables committed under results/, and for the runtime's loader.
//
// Tuned table (export_table), format "vktune-table" version 1:
//   { "format": "vktune-table", "version": 1,
//     "devices": [ {"id", "vendor_id", "device_id", "driver_version", "name", "driver_name",
//                   "driver_version_text", "device_uuid", "api_version_text",
//                   "ceilings": {NAME: {"value", "unit"}}} ],
//     "winners": [ {"device" (an id in "devices"), "kernel", "shape", "cache_mode", "variant_hash",
//                   "config" (object), "spirv_hash", "spirv_base64" (little-endian words),
//                   "specialization" (object), "local_size" [x, y, z], "dispatch" (object),
//                   "required_subgroup_size", "median_ns", "gbps", "gflops", "rel_l2_error",
//                   "baseline_variant_hash", "baseline_median_ns"} ] }
// The JSON-valued fields are parsed, so the table reads as one JSON document;
// text that is not JSON is kept as a string.
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/records.hpp"
#include "results/store.hpp"

namespace vktune::results {

inline constexpr int table_format_version = 1;

nlohmann::json to_json(const DeviceIdentity& device);
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const Winner& winner, bool with_spirv = true);

// Winners (with their SPIR-V) and the devices and ceilings they refer to.
nlohmann::json export_table(const Store& store, std::optional<std::int64_t> device_id = {},
                            const std::string& kernel_filter = "");

// One header line, then one line per measurement (RFC 4180 quoting).
void write_measurements_csv(std::ostream& out, std::span<const Measurement> measurements);

// Standard base64 (with padding) of SPIR-V words as little-endian bytes, and back.
std::string spirv_to_base64(std::span<const std::uint32_t> words);
std::vector<std::uint32_t> spirv_from_base64(std::string_view text);  // throws Error(format) on bad input

}  // namespace vktune::results
