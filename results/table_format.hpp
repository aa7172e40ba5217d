#pragma once
// The table format's binding-role names and hashes (content hashes of
// SPIR-V, entry_hash), compiled from the runtime's own text: a copy of
// runtime/src/table_format.inc made at configure time (results/CMakeLists.txt),
// so that what vktune writes is what the runtime library reads, and results
// includes nothing of the runtime.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vktune::results::table_format {
#include "vktune_table_format.inc"
}  // namespace vktune::results::table_format
