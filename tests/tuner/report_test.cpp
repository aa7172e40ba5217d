// Where a tune's time went, as the report prints it and --json carries it.
#include "tuner/report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/tuner/test_kernel.hpp"
#include "tuner/session.hpp"

namespace vktune {
namespace {

Outcome outcome(int wg, double median_ns, results::PhaseDurations durations) {
  Outcome o;
  o.config = {{"BUG", 0}, {"WG", wg}};
  o.variant_hash = "hash" + std::to_string(wg);
  o.timing.median = median_ns;
  o.timing.count = 3;
  o.durations = durations;
  return o;
}

// A baseline, two measured variants and one resumed from the store; the
// baseline and one variant re-timed by the confirmation.
ShapeResult sample_result() {
  ShapeResult r;
  r.shape = {1000};
  r.space_name = "all";
  r.strategy = "exhaustive";
  r.search_seconds = 2.0;
  r.outcomes.push_back(outcome(64, 900, {100, 10, 20, 300, 40}));
  r.outcomes[0].is_baseline = true;
  r.outcomes.push_back(outcome(32, 800, {200, 30, 50, 600, 60}));
  r.outcomes.push_back(outcome(128, 850, {}));
  r.outcomes.back().resumed = true;
  r.outcomes.push_back(outcome(256, 700, {0, 5, 30, 100, 20}));  // SPIR-V from the store: no compile
  r.baseline = 0;
  r.winner = 3;
  r.outcomes[0].confirmed = r.outcomes[3].confirmed = true;
  r.outcomes[0].confirm_durations = {0, 7, 0, 900, 120};
  r.outcomes[3].confirm_durations = {0, 3, 0, 500, 60};
  r.confirm_seconds = 1.7;
  r.confirm_rounds = 3;
  return r;
}

TEST(Report, TimeSpentSumsEachStepOverTheVariantsThisRunMeasured) {
  const auto j = time_spent_json(sample_result());
  const auto& search = j["search"];
  EXPECT_DOUBLE_EQ(search["seconds"]["compile"].get<double>(), 0.3);  // (100 + 200 + 0) ms
  EXPECT_DOUBLE_EQ(search["seconds"]["pipeline"].get<double>(), 0.045);
  EXPECT_DOUBLE_EQ(search["seconds"]["validation"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(search["seconds"]["warmup"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(search["seconds"]["timing"].get<double>(), 0.12);
  EXPECT_EQ(search["variants_measured"], 3);  // the resumed one cost nothing
  EXPECT_DOUBLE_EQ(search["wall_seconds"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(search["variants_per_second"].get<double>(), 2.0);  // 4 variants in 2 s
  const auto& confirm = j["confirm"];
  EXPECT_DOUBLE_EQ(confirm["seconds"]["pipeline"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(confirm["seconds"]["warmup"].get<double>(), 1.4);
  EXPECT_DOUBLE_EQ(confirm["seconds"]["timing"].get<double>(), 0.18);
  EXPECT_DOUBLE_EQ(confirm["seconds"]["validation"].get<double>(), 0.0);
  EXPECT_EQ(confirm["variants"], 1);  // besides the baseline
  EXPECT_EQ(confirm["rounds"], 3);
  EXPECT_DOUBLE_EQ(confirm["wall_seconds"].get<double>(), 1.7);
}

TEST(Report, ShapeJsonAndTextCarryTheTimeSpent) {
  testing::TestScaleKernel kernel;
  const auto r = sample_result();
  const auto j = shape_report_json(kernel, r, std::nullopt);
  EXPECT_EQ(j["time_spent"], time_spent_json(r));
  EXPECT_GE(kTuneJsonVersion, 2);

  std::ostringstream text;
  print_shape_report(text, kernel, r, std::nullopt, 5);
  EXPECT_NE(text.str().find("4 variants in 2.0 s (2.0/s)"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("time: 3 variants measured here, compile 0.3 s (in the background), pipelines 0.0 s, "
                            "validation 0.1 s, warm-up 1.0 s, timing 0.1 s"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("confirmation: 1 re-timed beside the baseline, 3 rounds, 1.7 s: compile 0.0 s, "
                            "pipelines 0.0 s, warm-up 1.4 s, timing 0.2 s"),
            std::string::npos)
      << text.str();
}

// The progress line showed the search's best; the confirmation's line and
// the report say how re-timing changed it.
TEST(Report, TheConfirmationSaysHowItMovedTheSearchsBest) {
  testing::TestScaleKernel kernel;
  auto r = sample_result();  // the winner (WG=256) took 700 ns in the search
  r.search_best = 3;
  r.search_best_ns = 700;
  std::ostringstream same;
  print_shape_report(same, kernel, r, std::nullopt, 5);
  EXPECT_EQ(same.str().find("re-timed the finalists"), std::string::npos) << same.str();  // nothing moved
  EXPECT_EQ(confirmation_summary(r, 1),
            "confirmation re-timed 1 finalist 3 times beside the baseline: the search's best (0.70 us then) stays "
            "the winner at 0.70 us");

  r.search_best_ns = 500;  // re-timed 40% slower: the same winner, both times shown
  std::ostringstream slower;
  print_shape_report(slower, kernel, r, std::nullopt, 5);
  EXPECT_NE(slower.str().find("the confirmation pass re-timed the finalists: the winner took 0.500 us in the "
                              "search, 0.700 us re-timed"),
            std::string::npos)
      << slower.str();

  r.search_best = 1;  // another variant was fastest in the search, 0.400 us, and re-timed at 0.800 us
  r.search_best_ns = 400;
  std::ostringstream other;
  print_shape_report(other, kernel, r, std::nullopt, 5);
  EXPECT_NE(other.str().find("the search's best (0.400 us then, a variant) re-timed at 0.800 us, so the winner is "
                             "another variant (0.700 us)"),
            std::string::npos)
      << other.str();
  EXPECT_EQ(confirmation_summary(r, 2),
            "confirmation re-timed 2 finalists 3 times beside the baseline: winner BUG=0 WG=256 at 0.70 us; the "
            "search's best (0.40 us) re-timed at 0.80 us");
}

}  // namespace
}  // namespace vktune
