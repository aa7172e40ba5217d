// Where a tune's time went, as the report prints it and --json carries it;
// and the HTML report's roofline with and without a tensor-core ceiling (a
// rate above the FMA roof, a tensor-core variant's, is drawn under the
// tensor cores' roof, which only a device that has them gets).
#include "cli/report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "tests/tuner/test_kernel.hpp"
#include "cli/html/report_plots.hpp"
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
  r.setup_seconds = 4.3;
  r.final_check_seconds = 6.5;
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
  EXPECT_DOUBLE_EQ(j["setup"]["wall_seconds"].get<double>(), 4.3);
  EXPECT_DOUBLE_EQ(j["final_check"]["wall_seconds"].get<double>(), 6.5);
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
  EXPECT_NE(text.str().find("besides: setup 4.3 s (the space, inputs, CPU references, upload), final check 6.5 s"),
            std::string::npos)
      << text.str();
}

// A winner of several stages gets one line naming each stage's template and
// time, and --json the same list; a one-stage winner neither (an empty list).
TEST(Report, AMultiStageWinnerNamesEachStagesTime) {
  testing::TestScaleKernel kernel;
  auto r = sample_result();
  std::ostringstream one_stage;
  print_shape_report(one_stage, kernel, r, std::nullopt, 5);
  EXPECT_EQ(one_stage.str().find("stages"), std::string::npos) << one_stage.str();
  EXPECT_TRUE(shape_report_json(kernel, r, std::nullopt).at("winner_stages").empty());

  r.winner_stages = {{"dequant_f16.comp", 29'410}, {"round_x_f16.comp", 10'300}, {"matmul_quant_cm_f16w.comp", 257'030}};
  r.winner_stages_launch_ns = 296'900;
  std::ostringstream text;
  print_shape_report(text, kernel, r, std::nullopt, 5);
  EXPECT_NE(text.str().find("winner's stages (launches timed stage by stage, 3 dispatches; a stage counts the barrier "
                            "before it): dequant_f16.comp 29.410 us, round_x_f16.comp 10.300 us, "
                            "matmul_quant_cm_f16w.comp 257.030 us; the launch 296.900 us"),
            std::string::npos)
      << text.str();
  const auto stages = shape_report_json(kernel, r, std::nullopt).at("winner_stages");
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[1].at("template"), "round_x_f16.comp");
  EXPECT_DOUBLE_EQ(stages[2].at("median_ns").get<double>(), 257'030);
}

// Warm-ups that ended without the full clock are counted, with the slowest
// gauge reading among them; with none, no clock line.
TEST(Report, TheTextSaysHowManyWarmUpsWaitedForTheClock) {
  testing::TestScaleKernel kernel;
  auto r = sample_result();
  std::ostringstream quiet;
  print_shape_report(quiet, kernel, r, std::nullopt, 5);
  EXPECT_EQ(quiet.str().find("clock:"), std::string::npos) << quiet.str();

  r.outcomes[0].clock_ratio = 1.01;
  r.outcomes[1].clock_ratio = 1.27, r.outcomes[1].clock_given_up = true;
  r.outcomes[3].clock_ratio = 1.12, r.outcomes[3].clock_given_up = true;
  std::ostringstream text;
  print_shape_report(text, kernel, r, std::nullopt, 5);
  EXPECT_NE(text.str().find("clock: 2 of 3 warm-ups ended without the GPU's full clock (the clock gauge took up to "
                            "1.27x its fastest time)"),
            std::string::npos)
      << text.str();
}

// The confirmation may store a variant the search ranked below the table's
// top rows: the table still shows it (marked), and "value in the winner"
// names its values, not the first row's.
TEST(Report, TheTableAlwaysHoldsTheWinnerAndImportanceNamesItsValues) {
  testing::TestScaleKernel kernel;
  const auto seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  ShapeResult r;
  r.shape = {1000};
  r.space_name = "all";
  r.strategy = "random";
  std::vector<double> medians;
  for (int i = 0; i < 12; ++i) {
    const int wg = 16 << (i % 6);  // six values, each twice
    const double median = 1000 + 100 * i + std::uniform_real_distribution<double>(0, 50)(rng);
    r.outcomes.push_back(outcome(wg, median, {}));
    r.outcomes.back().config["BUG"] = i / 6;
    medians.push_back(median);
  }
  const auto pick = std::uniform_int_distribution<std::size_t>(6, 11)(rng);  // below the top 5
  r.winner = pick;
  r.outcomes[pick].confirmed = true;
  std::ostringstream text;
  print_shape_report(text, kernel, r, std::nullopt, 5);
  const auto report = text.str();
  std::size_t rows = 0, marked = 0;
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" BUG=") == std::string::npos || line.find("importance") != std::string::npos) continue;
    ++rows;
    if (line.find("<- winner") != std::string::npos) {
      ++marked;
      EXPECT_NE(line.find(kernels::config_to_string(r.outcomes[pick].config)), std::string::npos) << line;
      char median[32];
      std::snprintf(median, sizeof median, "%.3f", medians[pick] / 1e3);
      EXPECT_NE(line.find(median), std::string::npos) << line;
    }
  }
  EXPECT_EQ(rows, 6u) << report;  // the top 5 and the winner
  EXPECT_EQ(marked, 1u) << report;
  const auto j = shape_report_json(kernel, r, std::nullopt);
  ASSERT_FALSE(j["parameter_importance"].empty()) << j.dump();
  for (const auto& p : j["parameter_importance"]) {
    EXPECT_EQ(p["best_value"].get<int>(), r.outcomes[pick].config.at(p["parameter"].get<std::string>())) << p.dump();
  }
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

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The roofline of one variant at `variant_gflops` on a device with the
// given tensor-core ceiling.
std::string draw(double variant_gflops, std::optional<double> tensor_gflops) {
  results::ShapeRecord record;
  results::StoredDevice device;
  record.key = {1, "matmul_f16", "4096,4096,4096", "cold"};
  const kernels::Metrics metrics{1e8, 1e11};  // 1000 FLOP per byte: compute-bound on any device
  const results::StoredRow row{.variant_hash = "v1",
                               .config_json = "{}",
                               .status = "ok",
                               .reason = "",
                               .median_ns = metrics.flops / variant_gflops,
                               .gflops = variant_gflops,
                               .created_at = ""};
  record.per_variant = {row};
  record.search_order = {row};
  device.read_gbps = 3000.0;
  device.fp32_gflops = 60000.0;
  device.tensor_gflops = tensor_gflops;
  return roofline_plot({&record, &device, metrics, "s1"});
}

TEST(RooflinePlot, TheTensorCoresRoofIsDrawnWhereTheDeviceHasThem) {
  const auto random_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(random_seed));
  std::mt19937 random(random_seed);
  const double tensor = std::uniform_real_distribution<double>(200000.0, 500000.0)(random);
  const double rate = std::uniform_real_distribution<double>(61000.0, 190000.0)(random);  // above FMA, below tensor
  const auto with = draw(rate, tensor);
  EXPECT_EQ(count(with, "class=\"roof\""), 1u) << with;
  EXPECT_EQ(count(with, "class=\"roof-tensor\""), 1u) << with;
  // The title gives both roofs at the kernel's intensity (3000 GB/s x 1000 FLOP/B caps neither).
  char want[64];
  std::snprintf(want, sizeof want, "(tensor cores %.2f)", tensor);
  EXPECT_NE(with.find(want), std::string::npos) << with;

  const auto without = draw(rate, std::nullopt);  // a device with no tensor-core ceiling measured
  EXPECT_EQ(count(without, "class=\"roof-tensor\""), 0u);
  EXPECT_EQ(without.find("tensor cores"), std::string::npos);
  const auto none = draw(rate, 0.0);  // measured: none
  EXPECT_EQ(count(none, "class=\"roof-tensor\""), 0u);
}


}  // namespace
}  // namespace vktune
