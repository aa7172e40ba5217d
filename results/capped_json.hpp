#pragma once
// JSON from a file or a database column, parsed with its nesting capped:
// the runtime's own text (runtime/src/capped_json.inc) copied at configure
// time (results/CMakeLists.txt), so that vktune and the runtime refuse the
// same texts. Every JSON parse of stored or user-supplied text in vktune
// goes through parse_capped_json.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vktune::results {
#include "vktune_capped_json.inc"
}  // namespace vktune::results
