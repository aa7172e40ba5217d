#pragma once
// JSON from a table file or a database column, parsed with its nesting
// capped (the text vktune's readers share: capped_json.inc).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vktune::runtime::detail {
#include "capped_json.inc"
}  // namespace vktune::runtime::detail
