// Which variants the confirmation pass re-times, and the order of its timings.
#include "tuner/confirmation.hpp"

#include <gtest/gtest.h>

namespace vktune {
namespace {

using Times = std::vector<std::optional<double>>;
using Indices = std::vector<std::size_t>;

TEST(Confirmation, EveryVariantWithinThreePercentOfTheFastest) {
  // 50 * 1.03 = 51.5: indices 1, 2, 3 and 7 are within, 4 (51.6) is not.
  const Times times{100, 50, 51, 51.4, 51.6, 60, std::nullopt, 51.5};
  EXPECT_EQ(confirmation_candidates(times, {0.03, 3, 32}, std::nullopt), (Indices{1, 2, 3, 7}));
}

TEST(Confirmation, AtLeastTheFastestFewHoweverFarApart) {
  const Times times{40, 10, std::nullopt, 30, 20};
  EXPECT_EQ(confirmation_candidates(times, {0.03, 3, 32}, std::nullopt), (Indices{1, 4, 3}));
  // Fewer successes than that: all of them; failures never.
  EXPECT_EQ(confirmation_candidates({std::nullopt, 7.0, std::nullopt}, {0.03, 3, 32}, std::nullopt), (Indices{1}));
}

TEST(Confirmation, AtMostTheCap) {
  const Times flat(40, 100.0);
  const auto picked = confirmation_candidates(flat, {0.03, 3, 32}, std::nullopt);
  ASSERT_EQ(picked.size(), 32u);
  for (std::size_t i = 0; i < picked.size(); ++i) EXPECT_EQ(picked[i], i);  // ties keep their order
}

TEST(Confirmation, TheBaselineCountsAmongTheFastestButIsNotACandidate) {
  // Ranks: 2 (baseline), 1, 3, 0. The three fastest are 2, 1 and 3; the
  // baseline is timed beside every candidate anyway.
  const Times times{90, 20, 10, 30};
  EXPECT_EQ(confirmation_candidates(times, {0.03, 3, 32}, std::size_t{2}), (Indices{1, 3}));
  // A slow baseline takes no place from the candidates.
  EXPECT_EQ(confirmation_candidates(times, {0.03, 3, 32}, std::size_t{0}), (Indices{2, 1, 3}));
}

TEST(Confirmation, BaselineBeforeEveryCandidateInEveryRound) {
  EXPECT_EQ(confirmation_order({5, 7}, std::size_t{0}, 2), (Indices{0, 5, 0, 7, 0, 5, 0, 7}));
  EXPECT_EQ(confirmation_order({5, 7}, std::nullopt, 2), (Indices{5, 7, 5, 7}));
  EXPECT_EQ(confirmation_order({5}, std::size_t{3}, 0), (Indices{3, 5}));  // at least one round
  EXPECT_TRUE(confirmation_order({}, std::size_t{3}, 3).empty());
}

}  // namespace
}  // namespace vktune
