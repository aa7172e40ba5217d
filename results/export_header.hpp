#pragma once
// The tuned table as a self-contained C++17 header that an application
// compiles in: SPIR-V words as constexpr arrays, one constexpr Entry per
// winner with its launch contract, and find(), in namespace vktune_table,
// with no dependency on vktune (standard library only). The header holds the
// same data as the JSON table (export_table) and compiles the runtime's own
// lookup rules (runtime/lookup_rules.inc), so its find() and the runtime
// library's Table::lookup agree. TABLE_FORMAT.md describes the generated API.
#include <functional>
#include <string>
#include <vector>

#include "results/export.hpp"

namespace vktune::results {

// The text of runtime/lookup_rules.inc, embedded at build time.
extern const char* const lookup_rules_text;
// runtime/src/word_expression.inc, likewise.
extern const char* const word_expression_text;

// The device features a SPIR-V module needs (runtime::required_features):
// the tuner passes the runtime's reader.
using FeaturesOf = std::function<std::vector<std::string>(const std::vector<std::uint32_t>& spirv)>;

// Throws Error(format) for a winner whose contract the header cannot carry.
// Winners without a contract are left out as export_table leaves them out.
std::string export_header(const Store& store, const ExportFilter& filter = {}, const ContractSource& contracts = {},
                          const FeaturesOf& features_of = {}, std::vector<std::string>* skipped = nullptr);

}  // namespace vktune::results
