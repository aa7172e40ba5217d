// Search quality, proven by replaying the H200's committed exhaustive
// measurements of attention_decode (measurements/nvidia-h200/measurements_session5.csv,
// read as committed): deterministic for the fixed seeds, so these are
// assertions on computed values, not on timings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "results/import_csv.hpp"
#include "tuner/search/replay.hpp"

namespace vktune {
namespace {

const std::filesystem::path kSession5 = std::filesystem::path(VKTUNE_SOURCE_DIR) / "measurements/nvidia-h200/measurements_session5.csv";

std::vector<ReplayRecord> records(const std::filesystem::path& csv, const std::string& kernel) {
  return replay_records(kernel, results::read_measurements_csv(csv));
}

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

// The bar: random needs a median 28.6% of the space to come within
// 1% of the best, and 9 runs in 10 only after 69%.
TEST(Replay, DefaultModelStrategyFindsTheBestInAFractionOfTheSpace) {
  const auto report = run("model", false, 60);
  const auto shares = pooled(report);
  for (const auto& s : report.shapes) {
    std::cout << "  model " << s.shape << ": median " << s.median_share_1pct() << ", p90 " << s.p90_share_1pct()
              << "\n";
  }
  EXPECT_LE(median(shares), 0.12);
  EXPECT_LE(percentile(shares, 0.9), 0.25);
}

TEST(Replay, RandomSearchIsTheBaselineTheModelBeats) {
  // Runs that never get within 1% in 80 evaluations count as above 1.
  const auto model = pooled(run("model", false, 80));
  const auto random = pooled(run("random", false, 80));
  EXPECT_GT(median(random), 1.5 * median(model));
  EXPECT_GT(percentile(random, 0.9), 1.5 * percentile(model, 0.9));
}

TEST(Replay, TransferFromASiblingShapeFindsTheBestAlmostAtOnce) {
  const auto report = run("model", true, 60);
  for (const auto& s : report.shapes) {
    ASSERT_TRUE(s.transfer_from) << s.shape;
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

}  // namespace
}  // namespace vktune
