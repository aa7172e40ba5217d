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

namespace {

void expect_count(const char* op, std::size_t count, std::size_t want, const char* what) {
  if (count != want) {
    throw Error(ErrorKind::usage, std::string(op) + ": " + what + " has " + std::to_string(count) +
                                      " values, expected " + std::to_string(want));
  }
}

}  // namespace

void expect_size(const char* op, std::span<const float> values, std::size_t want, const char* what) {
  expect_count(op, values.size(), want, what);
}

void expect_size(const char* op, std::span<const double> values, std::size_t want, const char* what) {
  expect_count(op, values.size(), want, what);
}

}  // namespace vktune::ref
