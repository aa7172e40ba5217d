#pragma once
// A push-constant word's value and bits as the runtime library computes
// them (runtime/src/word_expression.inc, copied at configure time): what
// vktune pushes when it tunes a word given as an expression, and what the
// spec loader holds the spec's own evaluation to before a contract carries
// the expression.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/launch_contract.hpp"

namespace vktune::kernels {

// The value of a word's expression at `shape`; nullopt with `why` naming the
// text where it does not parse or names no dimension.
std::optional<double> push_expression_value(const PushWord& word, const Shape& shape, std::string& why);

// The 32-bit word `value` is pushed as for `type` ("u32", "i32", "f32"):
// nullopt where it is not a whole number in the integer type's range or not
// a finite float.
std::optional<std::uint32_t> push_word_bits(double value, std::string_view type);

}  // namespace vktune::kernels
