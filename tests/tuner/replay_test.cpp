// How a replay walks a tune, proven on the H200's committed measurements
// (read as committed): attention_decode's exhaustive sets of session 5 (on
// which the strategy's settings were chosen), the session-3 sets of every
// kernel, and replay's bad input. Search quality per shape is in
// replay_per_shape_test.cpp. Deterministic for the fixed seeds, so these
// are assertions on computed values, not on timings.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <utility>

#include <unistd.h>

#include "common/error.hpp"
#include "engine/stale_config.hpp"
#include "harness/pipeline_statistics.hpp"
#include "kernels/registry.hpp"
#include "results/import_csv.hpp"
#include "tuner/search/replay.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/transfer.hpp"
#include "tests/tuner/replay_sets.hpp"

namespace vktune {
namespace {

using testing::kMeasurements;
using testing::records;

const std::filesystem::path kSession5 = kMeasurements / "measurements_session5.csv";
const std::filesystem::path kSession3 = kMeasurements / "measurements_session3.csv";

// A strategy that proposes the unspent configs in index order and writes
// down what it observed (config, time, and whether it had proposed it), so
// that tests see the order in which a replay feeds a search.
struct SpyEntry {
  kernels::Config config;
  std::optional<double> time_ns;
  bool proposed = false;
  Observation observation;
};
std::vector<SpyEntry>& spy_log() {
  static std::vector<SpyEntry> log;
  return log;
}

class SpyStrategy final : public TrackingStrategy {
 public:
  explicit SpyStrategy(const StrategyContext& context) : TrackingStrategy(context) {}
  std::vector<std::size_t> propose(std::size_t count) override {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < space_.size() && out.size() < count; ++i)
      if (spend(i)) {
        out.push_back(i);
        proposed_.push_back(i);
      }
    return out;
  }

 private:
  void on_result(const Observation& r) override {
    const bool mine = std::find(proposed_.begin(), proposed_.end(), r.index) != proposed_.end();
    spy_log().push_back({space_.config(r.index), r.time_ns, mine, r});
  }
  std::vector<std::size_t> proposed_;
};

const bool spy_registered = register_strategy(
    {"replay-spy", "test only: index order, every observation written down",
     [](const StrategyContext& c) { return std::make_unique<SpyStrategy>(c); }});

// Every run's shares of the three shapes, pooled.
std::vector<double> pooled(const ReplayReport& report, bool three_percent = false) {
  std::vector<double> all;
  for (const auto& s : report.shapes) {
    const auto& shares = three_percent ? s.share_3pct : s.share_1pct;
    all.insert(all.end(), shares.begin(), shares.end());
  }
  return all;
}

ReplayReport run(const std::string& strategy, bool transfer, std::size_t budget) {
  ReplayOptions options;
  options.strategy = strategy;
  options.transfer = transfer;
  options.runs = 20;
  options.seed = 2026;
  options.budget = budget;
  return replay(kernels::find_kernel("attention_decode"), records(kSession5, "attention_decode"), options);
}

TEST(Replay, TheH200AttentionMeasurementsHoldThreeExhaustiveShapes) {
  const auto report = run("random", false, 1);
  ASSERT_EQ(report.shapes.size(), 3u);
  for (const auto& s : report.shapes) EXPECT_GE(s.space, 140u) << s.shape;
}

TEST(Replay, TransferFromASiblingShapeFindsTheBestAlmostAtOnce) {
  const auto report = run("model", true, 60);
  for (const auto& s : report.shapes) {
    ASSERT_FALSE(s.transfer_from.empty()) << s.shape;
    EXPECT_GT(s.seeds, 0u) << s.shape;
  }
  EXPECT_LE(median(pooled(report)), 0.03);
}

TEST(Replay, BadInputIsAUsageErrorNamingTheProblem) {
  const auto& kernel = kernels::find_kernel("attention_decode");
  const auto all = records(kSession5, "attention_decode");
  auto expect_usage = [&](const std::vector<ReplayRecord>& recs, const ReplayOptions& options, const char* words) {
    try {
      replay(kernel, recs, options);
      ADD_FAILURE() << "no error for " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  ReplayOptions options;
  options.shape = "32,8,128,1024";
  expect_usage(all, options, "32,8,128,1024");
  expect_usage({}, {}, "no measurements");
  std::vector<ReplayRecord> few(all.begin(), all.begin() + 19);
  options.shape = few.front().shape;
  expect_usage(few, options, "at least 20");
  expect_usage(few, {}, "enough measurements");
}

// The committed export predates phases and durations: it reads as search
// rows with zero durations, one per data line, and a replay sees all of them.
TEST(Replay, ExportWithoutPhaseColumnsReadsAsSearchRows) {
  const auto rows = results::read_measurements_csv(kSession5);
  std::ifstream in(kSession5);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.find("phase"), std::string::npos);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) lines += !line.empty();  // no field of it spans lines
  ASSERT_EQ(rows.size(), lines);
  for (const auto& row : rows) {
    EXPECT_EQ(row.measurement.phase, results::Phase::search);
    EXPECT_EQ(row.measurement.durations, results::PhaseDurations{});
  }
  EXPECT_EQ(replay_records("attention_decode", rows).size(), lines);
}

// A confirmation re-times only the finalists, beside the baseline: a replay
// of the search must not see those times.
TEST(Replay, ConfirmationRowsAreLeftOut) {
  auto rows = results::read_measurements_csv(kSession5);
  const auto searched = replay_records("attention_decode", rows).size();
  auto confirm = rows.front();
  confirm.measurement.phase = results::Phase::confirm;
  confirm.measurement.median_ns = 1;  // faster than anything: would change every replay
  rows.push_back(confirm);
  const auto records = replay_records("attention_decode", rows);
  EXPECT_EQ(records.size(), searched);
  for (const auto& r : records) EXPECT_NE(r.time_ns, std::optional<double>(1.0));
}

TEST(Replay, CsvReaderRejectsAFileThatIsNotAMeasurementExport) {
  const auto path = std::filesystem::temp_directory_path() / ("vktune_not_measurements_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "a,b\n1,2\n";
  try {
    results::read_measurements_csv(path);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::format);
    EXPECT_NE(std::string(e.what()).find("kernel"), std::string::npos);
  }
  std::ofstream(path) << "kernel,shape,cache_mode,config,status,median_ns\nk,1,cold,\"{\"\"A\"\":1}\",ok,oops\n";
  EXPECT_THROW(results::read_measurements_csv(path), Error);
  std::filesystem::remove(path);
}

// Issue 39: measurements_session3.csv holds runs of several parameter
// vocabularies; at a9cf527 six kernels' replays stopped with an internal
// error (exit 5) because a config lacked parameters the others had. Every
// kernel of it now replays: configs of today's vocabulary brought up to
// date as a tune does, the others counted as stale.
TEST(ReplayWalksTheTune, EveryKernelOfSession3Replays) {
  const auto rows = results::read_measurements_csv(kSession3);
  for (const char* name : {"attention_decode", "matmul_f16", "matmul_f32", "matmul_q4_0", "matmul_q4k", "matmul_q5k",
                           "matmul_q6k", "matmul_q8_0"}) {
    ReplayOptions options;
    options.strategy = "random";
    options.runs = 1;
    options.budget = 5;
    try {
      const auto report = replay(kernels::find_kernel(name), replay_records(name, rows), options);
      EXPECT_FALSE(report.shapes.empty()) << name;
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
}

// As in a tune, the kernel's baseline is evaluated and observed before the
// strategy proposes anything (it is no proposal of the strategy's), and it
// counts as the first evaluation.
TEST(ReplayWalksTheTune, TheBaselineIsObservedFirst) {
  const auto& kernel = kernels::find_kernel("attention_decode");
  ReplayOptions options;
  options.strategy = "replay-spy";
  options.runs = 1;
  options.budget = 8;
  options.shape = "32,8,128,512";
  spy_log().clear();
  replay(kernel, records(kSession5, "attention_decode"), options);
  ASSERT_GE(spy_log().size(), 2u);
  const auto baseline = kernel.baseline(kernels::parse_shape("32,8,128,512", 4));
  EXPECT_EQ(spy_log().front().config, baseline);
  EXPECT_TRUE(spy_log().front().time_ns.has_value());
  EXPECT_FALSE(spy_log().front().proposed);
  for (std::size_t i = 1; i < spy_log().size(); ++i) EXPECT_TRUE(spy_log()[i].proposed) << i;
  EXPECT_EQ(spy_log().size(), 9u);  // the baseline, then the budget of 8
}

// A stored failure is observed as a failure, with its status (a timeout is
// not a wrong result), and it costs an evaluation like any other.
TEST(ReplayWalksTheTune, FailuresAreObservedAsFailuresWithTheirStatus) {
  auto recs = records(kSession5, "attention_decode");
  std::map<kernels::Config, results::Status> failed;
  std::size_t n = 0;
  for (auto& r : recs) {
    if (r.shape != "32,8,128,512" || ++n % 3 != 0) continue;
    r.time_ns.reset();
    r.status = n % 2 ? results::Status::timeout : results::Status::compile_error;
    // As the replay sees it: brought up to today's parameters.
    failed[*update_config(kernels::find_kernel("attention_decode"), kernels::parse_shape(r.shape, 4), r.config).config] =
        r.status;
  }
  ReplayOptions options;
  options.strategy = "replay-spy";
  options.runs = 1;
  options.shape = "32,8,128,512";
  spy_log().clear();
  const auto report = replay(kernels::find_kernel("attention_decode"), recs, options);
  std::size_t seen = 0;
  for (const auto& e : spy_log()) {
    const auto it = failed.find(e.config);
    if (it == failed.end()) {
      EXPECT_TRUE(e.time_ns.has_value());
      EXPECT_EQ(e.observation.status, results::Status::ok);
      continue;
    }
    ++seen;
    EXPECT_FALSE(e.time_ns.has_value());
    EXPECT_EQ(e.observation.status, it->second);
  }
  EXPECT_EQ(seen, failed.size());
  EXPECT_EQ(spy_log().size(), report.shapes.at(0).space);
}

// With transfer, a replay seeds its search as a tune does
// (tuner/search/transfer.hpp, the code the session calls): after the
// baseline, the stored winner and the fastest configs of the two nearest
// other shapes, kTransferTop + 1 of each, before any proposal.
TEST(ReplayWalksTheTune, TransferSeedsAreTheTunesSeeds) {
  const auto& kernel = kernels::find_kernel("attention_decode");
  auto recs = records(kSession5, "attention_decode");
  for (auto& rec : recs) rec.config = *update_config(kernel, kernels::parse_shape(rec.shape, 4), rec.config).config;
  ReplayOptions options;
  options.strategy = "replay-spy";
  options.runs = 1;
  options.budget = 20;
  options.transfer = true;
  options.shape = "32,8,128,4096";
  spy_log().clear();
  const auto report = replay(kernel, recs, options);
  const auto& r = report.shapes.at(0);
  // Nearest first: 8192 is one doubling away, 512 three halvings.
  ASSERT_EQ(r.transfer_from, (std::vector<std::string>{"32,8,128,8192", "32,8,128,512"}));
  // The expected seeds, per sibling: its stored winner, then its fastest
  // configs until four are taken (the winner, usually the fastest, counts
  // twice), where measured here too, each once.
  std::vector<kernels::Config> expected;
  for (const char* sibling : {"32,8,128,8192", "32,8,128,512"}) {
    std::vector<const ReplayRecord*> rs;
    for (const auto& rec : recs)
      if (rec.shape == sibling && rec.time_ns) rs.push_back(&rec);
    std::stable_sort(rs.begin(), rs.end(), [](auto* a, auto* b) { return *a->time_ns < *b->time_ns; });
    const auto winner = std::find_if(rs.begin(), rs.end(), [](auto* a) { return a->is_winner; });
    ASSERT_NE(winner, rs.end()) << sibling;
    std::vector<kernels::Config> mine{(*winner)->config};
    for (auto* rec : rs)
      if (mine.size() < kTransferTop + 1) mine.push_back(rec->config);
    for (const auto& c : mine) {
      const bool here = std::any_of(recs.begin(), recs.end(),
                                    [&](const auto& x) { return x.shape == "32,8,128,4096" && x.config == c; });
      if (here && std::find(expected.begin(), expected.end(), c) == expected.end()) expected.push_back(c);
    }
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(r.seeds, expected.size());
  ASSERT_GT(spy_log().size(), expected.size());
  EXPECT_FALSE(spy_log().front().proposed);  // the baseline
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(spy_log()[1 + i].config, expected[i]) << i;
    EXPECT_FALSE(spy_log()[1 + i].proposed) << i;
  }
  EXPECT_TRUE(spy_log()[1 + expected.size()].proposed);
}

// exhaustive in a replay is a tune's exhaustive: the kernel's enumeration
// order when nothing can cut the search (every run the same), a random order
// only when a budget may, and the report says which.
TEST(ReplayWalksTheTune, ExhaustiveIsTheEnumerationOrderUnlessABudgetMayCutIt) {
  const auto& kernel = kernels::find_kernel("attention_decode");
  const auto recs = records(kSession5, "attention_decode");
  ReplayOptions options;
  options.strategy = "exhaustive";
  options.runs = 6;
  options.shape = "32,8,128,512";
  const auto full = replay(kernel, recs, options).shapes.at(0);
  EXPECT_FALSE(full.bounded);
  for (double share : full.share_1pct) EXPECT_EQ(share, full.share_1pct.front());
  options.budget = full.space - 1;
  const auto cut = replay(kernel, recs, options).shapes.at(0);
  EXPECT_TRUE(cut.bounded);
  EXPECT_NE(*std::min_element(cut.share_1pct.begin(), cut.share_1pct.end()),
            *std::max_element(cut.share_1pct.begin(), cut.share_1pct.end()));
}

// Cost-aware search (issue 39 item 3). The committed exports hold no
// durations, so these landscapes keep session 5's measured times at
// attention_decode 32,8,128,4096 and give them stored durations and
// failures: a replay then runs exactly as on an export that has them.
std::vector<ReplayRecord> priced(const std::function<void(ReplayRecord&)>& price) {
  auto recs = records(kSession5, "attention_decode");
  std::vector<ReplayRecord> out;
  for (auto& r : recs) {
    if (r.shape != "32,8,128,4096") continue;
    price(r);
    out.push_back(r);
  }
  return out;
}

ReplayResult replay_priced(const std::vector<ReplayRecord>& recs, const std::string& strategy, bool hide_costs,
                           std::optional<double> time = std::nullopt, std::size_t runs = 50) {
  ReplayOptions options;
  options.strategy = strategy;
  options.runs = runs;
  options.seed = 39;
  options.hide_costs = hide_costs;
  options.time_seconds = time;
  if (!time) options.stop_within = 0.01;
  return replay(kernels::find_kernel("attention_decode"), recs, options).shapes.at(0);
}

// The simulated clock is the sum of the stored durations of what was
// evaluated, the baseline first: seconds to within 1% are those of the
// evaluations up to the one that got there, to the last digit.
TEST(CostAwareReplay, TheClockAdvancesByEachEvaluatedConfigsStoredDurations) {
  const auto recs = priced([](ReplayRecord& r) {
    r.durations = {};
    r.durations.compile_ms = 1000.0 * (1 + r.config.at("KV_CHUNK") / 256.0);
    r.durations.pipeline_ms = 250;
    r.durations.validation_ms = 10;
    r.durations.warmup_ms = 5;
    r.durations.timing_ms = 2;
  });
  spy_log().clear();
  const auto r = replay_priced(recs, "replay-spy", false, std::nullopt, 1);
  EXPECT_EQ(r.durations, "stored");
  double best = INFINITY, clock = 0;
  std::size_t evaluations = 0;
  for (const auto& e : spy_log()) {
    clock += e.observation.seconds;
    ++evaluations;
    if (e.time_ns) best = std::min(best, *e.time_ns);
    if (best <= r.best_ns * 1.01) break;
  }
  EXPECT_GT(evaluations, 1u);
  EXPECT_EQ(r.evaluations_1pct.at(0), static_cast<double>(evaluations));
  EXPECT_NEAR(r.seconds_1pct.at(0), clock, 1e-9 * clock);
}

// --time stops a run before its first evaluation past the budget, as a
// tune's --time does; without stored durations each evaluation costs
// kAssumedSecondsPerVariant.
TEST(CostAwareReplay, TimeIsASimulatedWallClockBudget) {
  const auto stored = priced([](ReplayRecord& r) {
    r.durations = {};
    r.durations.compile_ms = r.config.at("WG_SIZE") == 128 ? 9000 : 700;
    r.durations.timing_ms = 300;
  });
  const auto r = replay_priced(stored, "random", false, 60.0, 10);
  for (double used : r.seconds_used) {
    EXPECT_GE(used, 60.0);
    EXPECT_LT(used, 60.0 + 10.0);  // past the budget by one evaluation at most
  }
  auto bare = stored;
  for (auto& rec : bare) rec.durations = {};
  const auto assumed = replay_priced(bare, "random", false, 60.0, 10);
  EXPECT_EQ(assumed.durations, "assumed");
  for (double used : assumed.seconds_used) EXPECT_EQ(used, 60.0 * kAssumedSecondsPerVariant);
  for (std::size_t i = 0; i < assumed.seconds_1pct.size(); ++i) {
    if (std::isfinite(assumed.seconds_1pct[i])) {
      EXPECT_EQ(assumed.seconds_1pct[i], assumed.evaluations_1pct[i] * kAssumedSecondsPerVariant);
    }
  }
}

// Configs that take long to build (here the 122 of 189 with 128 threads a
// workgroup, 10 s each against 1 s; the best has 256) are measured when
// what they promise is worth their seconds: told the costs, the surrogate
// reaches 1% of the best in less simulated time than when it is not.
TEST(CostAwareReplay, ExpensiveConfigsArePricedAndTimeToSolutionDrops) {
  const auto recs = priced([](ReplayRecord& r) {
    r.durations = {};
    r.durations.compile_ms = r.config.at("WG_SIZE") == 128 ? 9500 : 500;
    r.durations.timing_ms = 500;
  });
  const auto aware = replay_priced(recs, kSurrogateStrategy, false);
  const auto blind = replay_priced(recs, kSurrogateStrategy, true);
  const auto random = replay_priced(recs, "random", false);
  std::cout << "  seconds to within 1% (median, p90): cost-aware " << aware.median_seconds_1pct() << ", "
            << aware.p90_seconds_1pct() << "; cost-blind " << blind.median_seconds_1pct() << ", "
            << blind.p90_seconds_1pct() << "; random " << random.median_seconds_1pct() << ", "
            << random.p90_seconds_1pct() << "\n";
  // Measured (50 runs, seed 39): cost-aware 67 s median, 113 s p90;
  // cost-blind 77.5 s and 220 s; random 252 s and 771 s.
  EXPECT_LT(aware.median_seconds_1pct(), blind.median_seconds_1pct());
  EXPECT_LE(aware.p90_seconds_1pct(), 0.75 * blind.p90_seconds_1pct());
  EXPECT_LT(aware.median_seconds_1pct(), 0.5 * random.median_seconds_1pct());
}

// A class of configs that timed out (here every one with 1024 or more cache
// entries a chunk, or the tensor-core path: 55 of 189, each costing its
// 20 s deadline) is priced, not forgotten: the surrogate evaluates far fewer
// of them than random does before it is within 1% of the best.
TEST(CostAwareReplay, AClassThatTimesOutIsPricedNotForgotten) {
  auto times_out = [](const kernels::Config& c) { return c.at("KV_CHUNK") >= 1024 || c.at("MMA") == 1; };
  const auto recs = priced([&](ReplayRecord& r) {
    r.durations = {};
    r.durations.compile_ms = 600;
    r.durations.timing_ms = 400;
    if (times_out(r.config)) {
      r.time_ns.reset();
      r.status = results::Status::timeout;
      r.durations.timing_ms = 19400;
    }
  });
  std::size_t failing = 0;
  for (const auto& r : recs) failing += r.status == results::Status::timeout;
  ASSERT_GT(failing, 40u);
  const auto aware = replay_priced(recs, kSurrogateStrategy, false);
  const auto random = replay_priced(recs, "random", false);
  std::cout << "  seconds to within 1% (median, p90): surrogate " << aware.median_seconds_1pct() << ", "
            << aware.p90_seconds_1pct() << "; random " << random.median_seconds_1pct() << ", "
            << random.p90_seconds_1pct() << "\n";
  // Measured (50 runs, seed 39): surrogate 91 s median, 122 s p90; random
  // 260.5 s and 886 s.
  EXPECT_LT(aware.median_seconds_1pct(), 0.5 * random.median_seconds_1pct());
  EXPECT_LE(aware.p90_seconds_1pct(), 0.5 * random.p90_seconds_1pct());
}

}  // namespace
}  // namespace vktune
