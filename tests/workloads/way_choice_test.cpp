// The rule by which a chain takes a fused way or the ops apart from their
// stored winners (workloads/llm/way_choice.hpp). Device-free.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "workloads/llm/way_choice.hpp"

namespace vktune::step {
namespace {

TEST(WayChoice, AWaysCostIsItsOpsSumAndUnknownWhereOneIsUnknown) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 draw(seed);
  std::uniform_real_distribution<double> ns(1e3, 1e6);
  const double a = ns(draw), b = ns(draw), c = ns(draw);
  WayNs sum = a;
  add_to(sum, b);
  add_to(sum, c);
  ASSERT_TRUE(sum.has_value());
  EXPECT_DOUBLE_EQ(*sum, a + b + c);
  add_to(sum, std::nullopt);
  EXPECT_FALSE(sum.has_value());
  add_to(sum, a);  // unknown stays unknown
  EXPECT_FALSE(sum.has_value());
}

TEST(WayChoice, TheFasterWhereBothAreKnownElseTheKnownElseTheFused) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 draw(seed);
  std::uniform_real_distribution<double> ns(1e3, 1e6);
  for (int i = 0; i < 100; ++i) {
    const double fused = ns(draw), apart = ns(draw);
    EXPECT_EQ(fused_way_runs(fused, apart), fused < apart) << fused << " against " << apart;
    // Only one way's winners stored: that way, however fast the other might be.
    EXPECT_TRUE(fused_way_runs(fused, std::nullopt));
    EXPECT_FALSE(fused_way_runs(std::nullopt, apart));
  }
  const double tie = ns(draw);
  EXPECT_FALSE(fused_way_runs(tie, tie));  // a tie keeps the ops apart
  EXPECT_TRUE(fused_way_runs(std::nullopt, std::nullopt));
}

}  // namespace
}  // namespace vktune::step
