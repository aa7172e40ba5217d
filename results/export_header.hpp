#pragma once
// The tuned table as a self-contained C++20 header that an application
// compiles in: SPIR-V words as constexpr uint32_t arrays, one constexpr Entry
// per winner, and a lookup, in namespace vktune_table, with no dependency on
// vktune (standard library only). TABLE_FORMAT.md describes the generated API.
#include <string>

#include "results/export.hpp"

namespace vktune::results {

// Throws Error(format) for a winner whose shape, dispatch rule or
// specialization constants are not in the form the header can carry.
std::string export_header(const Store& store, const ExportFilter& filter = {});

}  // namespace vktune::results
