#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;

class BenchTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-bench-" + std::to_string(std::random_device{}()));
  std::string db = (dir / "r.db").string();
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  // Runs vktune with `args`; returns (exit code, stdout).
  std::pair<int, std::string> vktune(const std::string& args) {
    const auto out = dir / "out.txt";
    const int status = std::system((std::string(VKTUNE_BINARY) + " " + args + " >" + out.string() + " 2>/dev/null").c_str());
    std::ifstream f(out);
    std::stringstream text;
    text << f.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
  }
};

TEST_F(BenchTest, ReportsWinnerAndBaselineWithCountersInGoogleBenchmarkJson) {
  ASSERT_EQ(vktune("matmul_q4k --device 0 --shape 13,70,512 --budget 2 --seed 1 --db " + db).first, 0);
  auto [code, out] = vktune("bench matmul_q4k --device 0 --db " + db + " -- --benchmark_format=json");
  ASSERT_EQ(code, 0) << out;
  const auto report = nlohmann::json::parse(out);
  std::set<std::string> names;
  for (const auto& b : report["benchmarks"]) {
    names.insert(b["name"].get<std::string>());
    EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>()) << b.dump();
    EXPECT_GT(b["bytes_per_second"].get<double>(), 0);
    EXPECT_GT(b["items_per_second"].get<double>(), 0);
    EXPECT_GT(b["pct_peak"].get<double>(), 0);
    EXPECT_GT(b["real_time"].get<double>(), 0);
    EXPECT_EQ(b["iterations"].get<int>(), 10);  // the fixed default: each is 15 timed samples
  }
  EXPECT_EQ(names, (std::set<std::string>{"matmul_q4k/M13_N70_K512/winner/iterations:10/manual_time",
                                          "matmul_q4k/M13_N70_K512/baseline/iterations:10/manual_time"}));
}

// A winner's report carries the time the database stores for it and this
// run's over it (whether a table tuned elsewhere reproduces here); the stored
// median is read back through `vktune export`, the ratio from Google
// Benchmark's own real_time. A baseline has no stored time.
TEST_F(BenchTest, AWinnerIsReportedBesideItsStoredTime) {
  ASSERT_EQ(vktune("add --device 0 --shape 4,256 --budget 2 --seed 3 --db " + db).first, 0);
  auto [export_code, table_text] = vktune("export --db " + db);
  ASSERT_EQ(export_code, 0);
  const auto table = nlohmann::json::parse(table_text);
  ASSERT_EQ(table.at("winners").size(), 1u);
  const double stored_us = table["winners"][0].at("median_ns").get<double>() * 1e-3;
  ASSERT_GT(stored_us, 0);
  auto [code, out] = vktune("bench add --device 0 --db " + db + " -- --benchmark_format=json --iterations 2");
  ASSERT_EQ(code, 0) << out;
  const auto report = nlohmann::json::parse(out);
  int winners = 0;
  for (const auto& b : report.at("benchmarks")) {
    const auto name = b.at("name").get<std::string>();
    if (name.find("/baseline/") != std::string::npos) {
      EXPECT_FALSE(b.contains("stored_us") || b.contains("vs_stored")) << b.dump();
      continue;
    }
    ++winners;
    ASSERT_TRUE(b.contains("stored_us") && b.contains("vs_stored")) << b.dump();
    EXPECT_NEAR(b["stored_us"].get<double>(), stored_us, 1e-9 * stored_us);
    const double ratio = b.at("real_time").get<double>() / stored_us;  // real_time in microseconds
    EXPECT_NEAR(b["vs_stored"].get<double>(), ratio, 1e-6 * ratio);
  }
  EXPECT_EQ(winners, 1);
}

// --max-drift (issue 42, item 6): a table whose stored time is what this
// device measures passes the check through export and import; the same
// database with its winner's time cut to a fiftieth (a stale time: a table's
// entries are hashed, so the cut is made in SQLite) fails it, naming the
// winner and both times on stderr, exit 1; and a check that measured no
// winner fails too, as does one whose config it cannot run. 1000% leaves
// room for a CPU driver's run-to-run spread; a fiftieth is 4900% off.
TEST_F(BenchTest, MaxDriftFailsAWinnerFarFromItsStoredTime) {
  ASSERT_EQ(vktune("add --device 0 --shape 4,256 --budget 2 --seed 3 --db " + db).first, 0);
  auto [export_code, table_text] = vktune("export --db " + db);
  ASSERT_EQ(export_code, 0);
  auto table = nlohmann::json::parse(table_text);
  ASSERT_EQ(table.at("winners").size(), 1u);
  const double stored_ns = table["winners"][0].at("median_ns").get<double>();
  const auto import_into = [&](const nlohmann::json& t, const std::string& name) {
    const auto file = dir / (name + ".json"), into = dir / (name + ".db");
    std::ofstream(file) << t.dump();
    EXPECT_EQ(vktune("import " + file.string() + " --db " + into.string()).first, 0);
    return into.string();
  };
  const auto err = dir / "err.txt";
  const auto bench = [&](const std::string& into) {
    const int status = std::system((std::string(VKTUNE_BINARY) + " bench add --device 0 --max-drift 1000 --db " +
                                    into + " -- --iterations 2 >/dev/null 2>" + err.string())
                                       .c_str());
    std::ifstream f(err);
    std::stringstream text;
    text << f.rdbuf();
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str());
  };
  const auto same = bench(import_into(table, "same"));
  EXPECT_EQ(same.first, 0) << same.second;
  EXPECT_NE(same.second.find("1 of 1 winners within 1000% of their stored times"), std::string::npos) << same.second;

  const auto stale_db = import_into(table, "stale");
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(stale_db.c_str(), &handle), SQLITE_OK);
  const auto cut = "UPDATE winners SET median_ns = " + std::to_string(stored_ns / 50);
  EXPECT_EQ(sqlite3_exec(handle, cut.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(handle), 1);
  sqlite3_close(handle);
  const auto stale = bench(stale_db);
  EXPECT_EQ(stale.first, 1) << stale.second;
  EXPECT_NE(stale.second.find("vktune-bench: drift: add 4,256: stored "), std::string::npos) << stale.second;
  EXPECT_NE(stale.second.find("0 of 1 winners within 1000%"), std::string::npos) << stale.second;

  // A winner whose config this vktune no longer offers (a table from a
  // newer vktune, or one whose parameter lost the value) is benchmarked as
  // its baseline only, so it was not checked: the check fails naming it.
  const auto unknown_db = import_into(table, "unknown");
  ASSERT_EQ(sqlite3_open(unknown_db.c_str(), &handle), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(handle, "UPDATE winners SET config_json = json_set(config_json, '$.WG_SIZE', 3)", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(handle), 1);
  sqlite3_close(handle);
  const auto unknown = bench(unknown_db);
  EXPECT_EQ(unknown.first, 1) << unknown.second;
  EXPECT_NE(unknown.second.find("vktune-bench: drift: add 4,256: stored "), std::string::npos) << unknown.second;
  EXPECT_NE(unknown.second.find("not measured: stale: WG_SIZE=3 is no longer a candidate value"), std::string::npos)
      << unknown.second;
  EXPECT_NE(unknown.second.find("0 of 1 winners within 1000%"), std::string::npos) << unknown.second;

  // Only another kernel's winners: nothing measured, nothing proved.
  const auto none = std::system((std::string(VKTUNE_BINARY) + " bench softmax --device 0 --max-drift 10 --db " +
                                 import_into(table, "none") + " >/dev/null 2>&1")
                                    .c_str());
  EXPECT_NE(WIFEXITED(none) ? WEXITSTATUS(none) : -1, 0);
}

// The report names what it was measured on (docs/JSON_OUTPUT.md,
// vktune-bench-context): the device as `vktune devices --json` describes it,
// the database and the cache mode.
TEST_F(BenchTest, ContextNamesTheDeviceDriverAndDatabase) {
  ASSERT_EQ(vktune("add --device 0 --shape 4,256 --budget 1 --seed 1 --db " + db).first, 0);
  auto [devices_code, devices_out] = vktune("devices --json");
  ASSERT_EQ(devices_code, 0);
  const auto device = nlohmann::json::parse(devices_out).at("devices").at(0);
  auto [code, out] = vktune("bench add --device 0 --db " + db + " -- --benchmark_format=json --iterations 1");
  ASSERT_EQ(code, 0) << out;
  const auto context = nlohmann::json::parse(out).at("context");
  EXPECT_EQ(context.at("vktune_format"), "vktune-bench-context");
  EXPECT_EQ(context.at("vktune_format_version"), "1");
  EXPECT_EQ(context.at("vktune_device_index"), "0");
  EXPECT_EQ(context.at("vktune_device_name"), device.at("name"));
  EXPECT_EQ(context.at("vktune_device_uuid"), device.at("device_uuid"));
  EXPECT_EQ(context.at("vktune_driver_name"), device.at("driver_name"));
  EXPECT_EQ(context.at("vktune_driver_info"), device.at("driver_info"));
  EXPECT_EQ(context.at("vktune_driver_version"), device.at("driver_version"));
  EXPECT_EQ(context.at("vktune_driver_uuid"), device.at("driver_uuid"));
  EXPECT_EQ(context.at("vktune_vendor_id"), std::to_string(device.at("vendor_id").get<std::uint32_t>()));
  EXPECT_EQ(context.at("vktune_device_id"), std::to_string(device.at("device_id").get<std::uint32_t>()));
  EXPECT_EQ(fs::path(context.at("vktune_database").get<std::string>()), fs::absolute(db));
  EXPECT_EQ(context.at("vktune_cache_mode"), "cold");
  EXPECT_EQ(context.at("vktune_iterations"), "1");
  EXPECT_EQ(context.at("vktune_version"), VKTUNE_VERSION);
  // Google Benchmark's own context is still there beside ours.
  EXPECT_TRUE(context.contains("date") && context.contains("num_cpus")) << context.dump();
}

TEST_F(BenchTest, StandardFlagsPassThrough) {
  ASSERT_EQ(vktune("matmul_q4k --device 0 --shape 13,70,512 --budget 1 --seed 1 --db " + db).first, 0);
  auto [code, out] = vktune("bench --device 0 --db " + db +
                            " -- --benchmark_format=json --benchmark_filter=winner --iterations 3");
  ASSERT_EQ(code, 0) << out;
  const auto report = nlohmann::json::parse(out);
  ASSERT_EQ(report["benchmarks"].size(), 1u);
  EXPECT_EQ(report["benchmarks"][0]["name"], "matmul_q4k/M13_N70_K512/winner/iterations:3/manual_time");
  EXPECT_EQ(report["benchmarks"][0]["iterations"], 3);
}

// --benchmark_min_time was accepted and silently ignored (the iteration
// count is fixed): refused with a usage error, before any device work.
TEST_F(BenchTest, FlagsThatWouldDoNothingAreRefused) {
  ASSERT_EQ(vktune("add --device 0 --shape 4,256 --budget 1 --seed 1 --db " + db).first, 0);
  for (const std::string flag : {"--benchmark_min_time=2s", "--benchmark_min_warmup_time=1"}) {
    EXPECT_EQ(vktune("bench --device 0 --db " + db + " -- " + flag).first, 2) << flag;
  }
  EXPECT_EQ(vktune("bench --device 0 --db " + db + " -- --benchmark_repetitions=2 --iterations 2").first, 0);
}

TEST_F(BenchTest, NoResultsForTheDeviceIsAClearError) {
  auto [code, out] = vktune("bench --device 0 --db " + (dir / "missing.db").string());
  EXPECT_NE(code, 0);
}

}  // namespace
