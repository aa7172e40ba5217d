#pragma once
// The size checks of the reference ops that take sized operands
// (depthwise_conv2d, conv2d): a product of sizes that overflows describes no
// buffer, and an operand of the wrong length is the caller's mistake; both
// are Error(usage) whose message starts with the op's name.
#include <cstddef>
#include <initializer_list>
#include <span>

namespace vktune::ref {

// The product of the sizes, or Error(usage) "OP: the sizes overflow".
std::size_t checked_product(const char* op, std::initializer_list<std::size_t> factors);

// Error(usage) "OP: WHAT has N values, expected WANT" unless values has want.
void expect_size(const char* op, std::span<const float> values, std::size_t want, const char* what);
void expect_size(const char* op, std::span<const double> values, std::size_t want, const char* what);

}  // namespace vktune::ref
