// The runtime's binding sizes in checked arithmetic (issue 40, item 5):
// random rules against the same formula in 128-bit arithmetic
// (tests/support/size_rule_oracle.hpp), on fresh inputs with a printed
// seed; a size that passes 2^64 is Error(usage), never a wrapped number
// that an application would allocate. vktune's twin:
// tests/kernels/size_rule_test.cpp.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <random>

#include "vktune_runtime.hpp"
#include "../support/size_rule_oracle.hpp"

namespace vktune::runtime {
namespace {

TEST(RuntimeSizeRuleBytes, AreTheExactBytesOrAnErrorWhereTheyPass64Bits) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto tally = size_rule_oracle::compare<SizeRule, Shape>(seed, 20000, [](const auto& rule, const auto& shape) {
    return size_rule_oracle::bytes_or_refusal<Error>(rule, shape, [](const Error& e) { return e.kind() == Error::Kind::usage; });
  });
  EXPECT_EQ(tally.disagreement, "");
  EXPECT_GT(tally.sized, 1000);
  EXPECT_GT(tally.refused, 1000);
}

// The case: 2^40 bytes per element of 2^24 elements wrapped to 0.
TEST(RuntimeSizeRuleBytes, ACoefficientOf2To40Times2To24ElementsIsAnError) {
  const SizeRule rule{{SizeTerm{std::uint64_t{1} << 40, {0}}}, 1, 4};
  EXPECT_THROW(rule.bytes({1u << 24}), Error);
  EXPECT_EQ(rule.bytes({1u << 23}), std::uint64_t{1} << 63);
}

}  // namespace
}  // namespace vktune::runtime
