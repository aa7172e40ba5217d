#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "tests/tuner/test_kernel.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

vk::DeviceInfo small_device() {
  vk::DeviceInfo d;
  d.max_workgroup_invocations = 1024;
  return d;
}

TEST(Space, EnumeratesCartesianProductAndFiltersByConstraint) {
  testing::TestScaleKernel kernel;
  auto e = enumerate_space(kernel, {100}, small_device());
  EXPECT_EQ(e.space_name, "all");
  EXPECT_EQ(e.total, 12u);
  EXPECT_EQ(e.filtered, 4u);  // WG=2048 with each BUG
  EXPECT_EQ(e.valid.size(), 8u);
  for (const auto& c : e.valid) EXPECT_NE(c.at("WG"), 2048);
  std::set<kernels::Config> unique(e.valid.begin(), e.valid.end());
  EXPECT_EQ(unique.size(), e.valid.size());
}

TEST(Space, SelectOnlyKeepsConfigsWithTheListedValues) {
  testing::TestScaleKernel kernel;
  const auto e = enumerate_space(kernel, {100}, small_device());
  const auto kept = select_only(kernel, {100}, e.valid, {{"BUG", {1, 3}}, {"WG", {64}}});
  ASSERT_EQ(kept.size(), 2u);
  for (const auto& c : kept) {
    EXPECT_EQ(c.at("WG"), 64);
    EXPECT_TRUE(c.at("BUG") == 1 || c.at("BUG") == 3);
  }
  EXPECT_EQ(select_only(kernel, {100}, e.valid, {}).size(), e.valid.size());
  // A parameter the space lacks does not narrow it: check_only has refused
  // or noted it for the run.
  EXPECT_EQ(select_only(kernel, {100}, e.valid, {{"NOPE", {1}}}).size(), e.valid.size());
  EXPECT_THROW(check_only(kernel, {{100}}, {{"NOPE", {1}}}), Error);
  EXPECT_THROW(check_only(kernel, {{100}}, {{"WG", {65}}}), Error);
  EXPECT_TRUE(check_only(kernel, {{100}}, {{"WG", {64}}}).empty());
}

TEST(Shape, ParseAndFormat) {
  EXPECT_EQ(kernels::parse_shape("1,4096,14336", 3), (kernels::Shape{1, 4096, 14336}));
  EXPECT_EQ(kernels::shape_to_string({1, 4096, 14336}), "1,4096,14336");
  for (const char* bad : {"", "1,2", "1,2,3,4", "1,,3", "a,2,3", "0,2,3", "-1,2,3", "1,2,99999999999", "1 ,2,3"}) {
    EXPECT_THROW(kernels::parse_shape(bad, 3), Error) << bad;
  }
}

TEST(Config, JsonRoundTripIsCanonical) {
  kernels::Config c{{"WG", 64}, {"A", 2}};
  EXPECT_EQ(kernels::config_to_json(c), R"({"A":2,"WG":64})");
  EXPECT_EQ(kernels::config_from_json(kernels::config_to_json(c)), c);
  EXPECT_THROW(kernels::config_from_json("{oops"), Error);
}

TEST(Dispatch, WorkgroupCountsRoundUp) {
  kernels::DispatchRule rule{kernels::DispatchAxis{1, 4}, kernels::DispatchAxis{0, 8}, kernels::DispatchAxis{}};
  EXPECT_EQ(kernels::workgroup_counts(rule, {9, 13, 256}), (std::array<std::uint32_t, 3>{4, 2, 1}));
}

}  // namespace
}  // namespace vktune
