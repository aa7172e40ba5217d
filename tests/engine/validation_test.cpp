#include "engine/validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace vktune {
namespace {

std::vector<double> random_reference(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-4, 4);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<float> as_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

TEST(Validation, ExactFloatRoundingPasses) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto ref = random_reference(1000, seed);
  auto v = compare_output(as_float(ref), ref, {1e-6, 1e-5});
  EXPECT_TRUE(v.passed) << v.reason;
  EXPECT_LT(v.rel_l2, 1e-7);
  EXPECT_EQ(v.non_finite, 0u);
}

TEST(Validation, PoisonLeftInOneElementFails) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto ref = random_reference(257, seed);
  auto got = as_float(ref);
  got[256] = std::numeric_limits<float>::quiet_NaN();
  auto v = compare_output(got, ref, {1e-3, 1e-2});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.non_finite, 1u);
  EXPECT_NE(v.reason.find("index 256"), std::string::npos) << v.reason;
}

TEST(Validation, InfinityFails) {
  auto ref = random_reference(16, 7);
  auto got = as_float(ref);
  got[3] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(compare_output(got, ref, {1, 1}).passed);
}

TEST(Validation, RelativeL2IsComputedAndChecked) {
  std::vector<double> ref = {3.0, 4.0};  // norm 5
  std::vector<float> got = {3.0f, 4.5f};  // error norm 0.5
  auto v = compare_output(got, ref, {0.2, 1.0});
  EXPECT_TRUE(v.passed) << v.reason;
  EXPECT_NEAR(v.rel_l2, 0.1, 1e-12);
  EXPECT_NEAR(v.max_abs, 0.5, 1e-12);
  EXPECT_NEAR(v.max_rel, 0.125, 1e-12);
  auto strict = compare_output(got, ref, {0.05, 1.0});
  EXPECT_FALSE(strict.passed);
  EXPECT_NE(strict.reason.find("relative L2"), std::string::npos);
}

TEST(Validation, OneLargeElementErrorFailsMaxCheck) {
  auto ref = random_reference(10000, 11);
  auto got = as_float(ref);
  got[1234] += 0.5f;  // tiny in L2 over 10000 elements, large elementwise
  auto v = compare_output(got, ref, {1e-2, 1e-3});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("element 1234"), std::string::npos) << v.reason;
}

TEST(Validation, UnsampledReferenceOnlyRequiresFinite) {
  std::vector<double> ref = {1.0, std::nan(""), 2.0};
  EXPECT_TRUE(compare_output({1.0f, 123.0f, 2.0f}, ref, {1e-6, 1e-6}).passed);
  EXPECT_FALSE(compare_output({1.0f, std::nanf(""), 2.0f}, ref, {1e-6, 1e-6}).passed);
}

TEST(Validation, SizeMismatchFails) { EXPECT_FALSE(compare_output({1.0f}, {1.0, 2.0}, {1, 1}).passed); }

}  // namespace
}  // namespace vktune
