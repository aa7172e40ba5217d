// `vktune replay --from FILE.t4`: H200 measurements (session 5's export)
// stored, written as T4 (results/export_t4) and read back
// (results/import_t4) replay as the CSV they came from, run for run; a T4
// file of another tool's (no vktune fields) replays with the shape given;
// a malformed one is refused naming the result.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "results/export_t4.hpp"
#include "results/import_csv.hpp"
#include "results/import_t4.hpp"
#include "results/store.hpp"
#include "tests/tuner/replay_sets.hpp"
#include "tuner/search/replay.hpp"

namespace vktune {
namespace {

const std::filesystem::path kT4SourceCsv = testing::kMeasurements / "measurements_session5.csv";

struct T4Dir {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("vktune_t4_" + std::to_string(::getpid()) + "_" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  T4Dir() { std::filesystem::create_directories(dir); }
  ~T4Dir() { std::filesystem::remove_all(dir); }
};

// The rows stored as a tune would have stored them.
void store_rows_t4(results::Store& store, const std::vector<results::MeasurementRow>& rows) {
  std::map<std::int64_t, std::int64_t> device_rows;
  for (const auto& row : rows) {
    if (!device_rows.count(row.device_row)) device_rows[row.device_row] = store.upsert_device(row.device);
    store.upsert_variant({row.measurement.variant_hash, row.kernel, "t.comp", row.config_json, "", ""});
    auto m = row.measurement;
    m.device_id = device_rows[row.device_row];
    store.record_measurement(m);
  }
}

ReplayReport t4_replay_of(const std::vector<results::MeasurementRow>& rows) {
  ReplayOptions options;
  options.strategy = "model";
  options.runs = 6;
  options.seed = 35;
  options.budget = 30;
  return replay(kernels::find_kernel("attention_decode"), replay_records("attention_decode", rows), options);
}

TEST(ReplayT4, AVktuneT4ExportReplaysAsTheCsvItCameFrom) {
  T4Dir tmp;
  const auto csv_rows = results::read_measurements_csv(kT4SourceCsv);
  {
    auto store = results::Store::open(tmp.dir / "s5.db");
    store_rows_t4(store, csv_rows);
    std::ofstream(tmp.dir / "s5.t4") << results::export_t4(store).dump();
  }
  const auto t4_rows = results::read_measurements_t4(tmp.dir / "s5.t4", {"attention_decode", ""});
  ASSERT_EQ(t4_rows.size(), csv_rows.size());
  const auto from_csv = t4_replay_of(csv_rows), from_t4 = t4_replay_of(t4_rows);
  ASSERT_EQ(from_t4.shapes.size(), from_csv.shapes.size());
  for (std::size_t s = 0; s < from_csv.shapes.size(); ++s) {
    const auto &a = from_csv.shapes[s], &b = from_t4.shapes[s];
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.space, b.space);
    EXPECT_DOUBLE_EQ(a.best_ns, b.best_ns);
    EXPECT_EQ(a.quality, b.quality) << a.shape;
    EXPECT_EQ(a.share_1pct, b.share_1pct) << a.shape;
  }
}

TEST(ReplayT4, AnotherToolsFileReplaysWithTheShapeGivenAndBadOnesAreNamed) {
  T4Dir tmp;
  // Kernel Tuner's way: no vktune fields, runtimes in ms.
  const auto csv_rows = results::read_measurements_csv(kT4SourceCsv);
  const std::string shape = csv_rows.front().measurement.shape;
  nlohmann::json results = nlohmann::json::array();
  std::size_t at_shape = 0;
  for (const auto& row : csv_rows) {
    if (row.kernel != "attention_decode" || row.measurement.shape != shape) continue;
    const bool ok = row.measurement.status == results::Status::ok;
    results.push_back({{"configuration", nlohmann::json::parse(row.config_json)},
                       {"times", {{"runtimes", ok ? nlohmann::json::array({row.measurement.median_ns / 1e6})
                                                  : nlohmann::json::array()}}},
                       {"invalidity", ok ? "correct" : "compile"},
                       {"correctness", ok ? 1 : 0}});
    ++at_shape;
  }
  std::ofstream(tmp.dir / "kt.json") << nlohmann::json{{"schema_version", "1.0.0"}, {"results", results}}.dump();
  const auto rows = results::read_measurements_t4(tmp.dir / "kt.json", {"attention_decode", shape});
  ASSERT_EQ(rows.size(), at_shape);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].measurement.shape, shape);
  const auto report = t4_replay_of(rows);
  ASSERT_EQ(report.shapes.size(), 1u);
  EXPECT_EQ(report.shapes[0].shape, shape);

  auto expect_refused = [&](const nlohmann::json& doc, const std::string& fragment, const std::string& given_shape) {
    std::ofstream(tmp.dir / "bad.t4") << doc.dump();
    try {
      (void)results::read_measurements_t4(tmp.dir / "bad.t4", {"attention_decode", given_shape});
      ADD_FAILURE() << "accepted: " << doc.dump();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::format);
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_refused(nlohmann::json{{"schema_version", "1.0.0"}, {"results", results}}, "results[0] names no shape", "");
  auto no_times = results;
  no_times[1].erase("times");
  expect_refused({{"results", no_times}}, "results[1] has no \"times\"", shape);
  auto fractional = results;
  fractional[2]["configuration"]["WG"] = 1.5;
  expect_refused({{"results", fractional}}, "results[2]: configuration parameter 'WG' is not a whole number", shape);
  auto unknown = results;
  unknown[0]["invalidity"] = "flaky";
  expect_refused({{"results", unknown}}, "invalidity 'flaky'", shape);
  expect_refused(nlohmann::json::array(), "not a T4 results file", shape);
}

}  // namespace
}  // namespace vktune
