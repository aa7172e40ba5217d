#include "reference/operand_sizes.hpp"

#include <string>

#include "common/error.hpp"

namespace vktune::ref {

std::size_t checked_product(const char* op, std::initializer_list<std::size_t> factors) {
  std::size_t p = 1;
  for (auto f : factors) {
    if (__builtin_mul_overflow(p, f, &p)) throw Error(ErrorKind::usage, std::string(op) + ": the sizes overflow");
  }
  return p;
}

void expect_size(const char* op, std::span<const float> values, std::size_t want, const char* what) {
  if (values.size() != want) {
    throw Error(ErrorKind::usage, std::string(op) + ": " + what + " has " + std::to_string(values.size()) +
                                      " values, expected " + std::to_string(want));
  }
}

}  // namespace vktune::ref
