// A binding's size in checked arithmetic (issue 40, item 5): random rules
// against the same formula in 128-bit arithmetic (tests/support/
// size_rule_oracle.hpp), on fresh inputs with a printed seed; a size that
// passes 2^64 is a usage error, never a wrapped number. The runtime's twin:
// tests/runtime/size_rule_test.cpp.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <random>

#include "common/error.hpp"
#include "kernels/launch_contract.hpp"
#include "tests/support/size_rule_oracle.hpp"

namespace vktune::kernels {
namespace {

TEST(SizeRuleBytes, AreTheExactBytesOrAnErrorWhereTheyPass64Bits) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto tally = size_rule_oracle::compare<SizeRule, Shape>(seed, 20000, [](const auto& rule, const auto& shape) {
    return size_rule_oracle::bytes_or_refusal<Error>(rule, shape, [](const Error& e) { return e.kind() == ErrorKind::usage; });
  });
  EXPECT_EQ(tally.disagreement, "");
  // Both outcomes drawn often enough to mean something.
  EXPECT_GT(tally.sized, 1000);
  EXPECT_GT(tally.refused, 1000);
}

// The case: 2^40 bytes per element of 2^24 elements wrapped to 0.
TEST(SizeRuleBytes, ACoefficientOf2To40Times2To24ElementsIsAnError) {
  const auto rule = size_rule(std::uint64_t{1} << 40, {0});
  EXPECT_THROW(rule.bytes({1u << 24}), Error);
  EXPECT_EQ(rule.bytes({1u << 23}), std::uint64_t{1} << 63);
}

}  // namespace
}  // namespace vktune::kernels
