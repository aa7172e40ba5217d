#include "tuner/time_share.hpp"

#include <gtest/gtest.h>

#include <random>

namespace vktune {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(ShapeDeadline, EqualSharesOfWhatIsLeftAndTheLastShapeTakesTheRest) {
  std::mt19937 random{std::random_device{}()};
  const auto start = steady_clock::now();
  const milliseconds budget{std::uniform_int_distribution<int>(10'000, 600'000)(random)};
  const std::size_t shapes = std::uniform_int_distribution<std::size_t>(2, 12)(random);
  const auto run_deadline = start + budget;
  // Every shape uses its whole share: the shares are equal and end at the run's deadline.
  auto now = start;
  for (std::size_t left = shapes; left >= 1; --left) {
    const auto d = shape_deadline(now, run_deadline, left);
    const auto share = std::chrono::duration_cast<milliseconds>(d - now);
    EXPECT_NEAR(static_cast<double>(share.count()), static_cast<double>(budget.count()) / static_cast<double>(shapes),
                1.0)
        << left << " of " << shapes << " shapes left";
    now = d;
  }
  EXPECT_EQ(now, run_deadline);
}

TEST(ShapeDeadline, TimeAShapeLeavesGoesToTheLaterOnes) {
  const auto start = steady_clock::now();
  const auto run_deadline = start + milliseconds(90'000);
  // Three shapes: the first stops after 5 s of its 30; the other two share the remaining 85 s.
  const auto second_start = start + milliseconds(5'000);
  EXPECT_EQ(shape_deadline(second_start, run_deadline, 2), second_start + milliseconds(42'500));
  EXPECT_EQ(shape_deadline(second_start, run_deadline, 1), run_deadline);
  // Past the run's deadline a shape gets none.
  EXPECT_EQ(shape_deadline(run_deadline + milliseconds(1), run_deadline, 3), run_deadline);
}

}  // namespace
}  // namespace vktune
