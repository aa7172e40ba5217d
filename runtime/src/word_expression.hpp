#pragma once
// A push-constant word's expression (word_expression.inc) in the runtime's
// namespace, for the contract parser and the lookup: one inclusion per
// translation unit, which a unity build of both needs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace vktune::runtime::detail {
#include "word_expression.inc"
}  // namespace vktune::runtime::detail
