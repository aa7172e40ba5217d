#pragma once
// The runtime's internals: the loaded table, and the checks both loaders (JSON
// and SQLite) apply to every field so that a table is either whole or an Error.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vktune_runtime.hpp"

namespace vktune::runtime::detail {

// The table format's role names and hashes (what vktune's exporter writes
// with the same text).
namespace format {
#include "table_format.inc"
}  // namespace format
static_assert(static_cast<std::size_t>(BindingRole::uniform) + 1 == format::binding_role_count,
              "BindingRole's values index format::binding_role_names");

struct TableData {
  std::string source;  // file path or caller-given name, for messages
  std::vector<TableDevice> devices;
  std::vector<Entry> entries;
};

// Error(format) "<source>: <what>".
[[noreturn]] void fail(const std::string& source, const std::string& what);

// "1,37,1024" -> {1, 37, 1024}; every dimension 1..2^32-1. Empty on malformed text.
std::vector<std::uint32_t> parse_shape_text(std::string_view text);
std::string shape_text(std::span<const std::uint32_t> shape);

// Field decoders; `where` names the field in messages ("winners[3].dispatch").
// Each throws Error(format) naming the source and the field.
DispatchRule parse_dispatch(const nlohmann::json& value, const std::string& source, const std::string& where);
std::vector<SpecializationConstant> parse_specialization(const nlohmann::json& value, const std::string& source,
                                                         const std::string& where);

// Standard base64 with padding -> bytes; false on malformed text.
bool base64_decode(std::string_view text, std::vector<std::uint8_t>& bytes);

// Little-endian bytes -> SPIR-V words, checked: a whole number of words, at
// least a header, the SPIR-V magic number, and, when `hash` is not empty, the
// store's content hash (format::content_hash).
std::vector<std::uint32_t> spirv_from_bytes(std::span<const std::uint8_t> bytes, std::string_view hash,
                                            const std::string& source, const std::string& where);

// SPIR-V words by their content hash: the version-2 table's "spirv" object,
// the database's spirv table.
using SpirvByHash = std::map<std::string, std::vector<std::uint32_t>, std::less<>>;

// The "contract" object of a version-2 entry (or a schema-4 database row),
// for a `dims`-dimensional shape; its stages' SPIR-V from `spirv`; features
// read from the SPIR-V. Throws Error(format) naming `where` and the field.
Contract parse_contract(const nlohmann::json& value, std::size_t dims, const SpirvByHash& spirv,
                        const std::string& source, const std::string& where);
// The contract of an entry from before contracts (table version 1, schema
// 1..3): one stage, no bindings, the shape class its readers assumed.
Contract legacy_contract(const std::vector<std::uint32_t>& shape, Stage stage);

// Checks that cut across entries (device references, kernel names, ...) and
// sorts nothing: table order is the source's order.
void check_entry(const TableData& table, const Entry& entry, const std::string& where);

TableData load_json_text(std::string_view text, const std::string& source);
TableData load_sqlite(const std::string& path);

}  // namespace vktune::runtime::detail
