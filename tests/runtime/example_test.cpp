// The example programs on the test device: a table made from a real tuned
// database, the pipelines built from its SPIR-V, the result checked against
// the reference. C++ (matmul_q4k) and plain C (rmsnorm_mul).
#include <gtest/gtest.h>

#include <cstdlib>

#include "fixtures.hpp"
#include "vktune_runtime.hpp"

namespace fs = std::filesystem;

namespace {

std::string device_arg() {
  const char* env = std::getenv("VKTUNE_TEST_DEVICE");
  return std::string(" --device ") + (env && *env ? env : "0");
}

rt_test::RunResult example(const fs::path& table, const std::string& args = "") {
  auto r = rt_test::run(std::string(VKTUNE_RUNTIME_EXAMPLE) + " " + table.string() + device_arg() + " " + args);
  std::printf("%s", r.output.c_str());
  return r;
}

// The fixture database exported by `vktune export`, with an optional change.
fs::path json_table(const fs::path& dir, const std::function<void(nlohmann::json&)>& change = {}) {
  const auto path = dir / "table.json";
  const auto r = rt_test::run(std::string(VKTUNE_BINARY) + " export --format json -o " + path.string() + " --db " +
                              rt_test::tuned_db().string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (change) {
    auto doc = nlohmann::json::parse(rt_test::read_file(path));
    change(doc);
    rt_test::rehash(doc);  // a table as another machine would have exported it
    rt_test::write_file(path, doc.dump(2) + "\n");
  }
  return path;
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in:\n" << text;
}

}  // namespace

TEST(RuntimeExample, ExactShapeFromAnExportedTable) {
  const auto dir = rt_test::fresh_dir("example");
  const auto r = example(json_table(dir), "--shape 1,37,1024");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "rule: device_and_driver (same device and driver");
  expect_contains(r.output, "exact shape 1,37,1024");
  expect_contains(r.output, ": OK");
  fs::remove_all(dir);
}

TEST(RuntimeExample, NearestShapeFromTheDatabase) {
  // Decode 4,100,2048 runs the winner tuned for 1,37,1024; prefill 40,96,768
  // the one tuned for 13,70,512. Both straight from the SQLite file.
  auto r = example(rt_test::tuned_db(), "--shape 4,100,2048");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "nearest shape 1,37,1024");
  expect_contains(r.output, ": OK");
  r = example(rt_test::tuned_db(), "--shape 40,96,768 --seed 7");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "nearest shape 13,70,512");
  expect_contains(r.output, ": OK");
}

TEST(RuntimeExample, OtherDriverAndArchitectureLevels) {
  const auto dir = rt_test::fresh_dir("example-levels");
  auto r = example(json_table(dir, [](auto& d) { d["devices"][0]["driver_version"] = 12345; }), "--shape 13,70,512");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "rule: device (same device, other driver");
  r = example(json_table(dir, [](auto& d) { d["devices"][0]["name"] = d["devices"][0]["name"].template get<std::string>() + " x"; }));
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "rule: architecture");
  r = example(json_table(dir, [](auto& d) { d["devices"][0]["name"] = "some other CPU renderer"; }));
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "rule: vendor");
  fs::remove_all(dir);
}

// A winner with 8-bit activations (X_QUANT=1): the example enables the
// integer dot product feature its SPIR-V declares, and holds the result to the
// accuracy recorded for the variant rather than the fp32 1e-4.
TEST(RuntimeExample, IntegerDotVariantGetsItsFeatureAndRecordedAccuracy) {
  const auto dir = rt_test::fresh_dir("example-xq");
  const auto db = dir / "xq.db";
  auto r = rt_test::run(std::string(VKTUNE_BINARY) + " matmul_q4k" + device_arg() +
                        " --shape 1,37,1024 --only X_QUANT=1 --budget 2 --seed 3 --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto table = dir / "xq.json";
  r = rt_test::run(std::string(VKTUNE_BINARY) + " export --format json -o " + table.string() + " --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto doc = nlohmann::json::parse(rt_test::read_file(table));
  ASSERT_EQ(doc["winners"].size(), 1u);
  const bool integer_winner = doc["winners"][0]["config"]["X_QUANT"] == 1;
  r = example(table, "--shape 1,37,1024 --seed 11");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, ": OK");
  if (integer_winner) {  // else the baseline (fp32, never X_QUANT) was faster on this device
    expect_contains(r.output, "features: shaderIntegerDotProduct");
    EXPECT_EQ(r.output.find("tolerance 1.0e-04"), std::string::npos) << r.output;
  }
  fs::remove_all(dir);
}

TEST(RuntimeExample, NoUsableEntryOrBadTableFails) {
  const auto dir = rt_test::fresh_dir("example-fail");
  // Only the decode winner: a prefill shape has nothing, and the example has no baseline.
  const auto decode_only = json_table(dir, [](auto& d) {
    auto& w = d["winners"];
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i]["shape"] != "1,37,1024") w.erase(i--);
    }
  });
  auto r = example(decode_only, "--shape 13,70,512");
  EXPECT_EQ(r.exit_code, 3);
  expect_contains(r.output, "no baseline");
  const auto text = rt_test::read_file(decode_only);
  rt_test::write_file(dir / "cut.json", text.substr(0, text.size() / 2));
  r = example(dir / "cut.json");
  EXPECT_EQ(r.exit_code, 3);
  expect_contains(r.output, "not valid JSON");
  r = example(dir / "cut.json", "--shape 1,2");
  EXPECT_EQ(r.exit_code, 2);
  fs::remove_all(dir);
}

namespace {

// rmsnorm_mul tuned briefly at 4,1000 on the test device, exported as JSON
// with an optional change to its one winner (rehashed, as another machine
// would have exported it).
fs::path rmsnorm_table(const fs::path& dir, const std::function<void(nlohmann::json&)>& change = {}) {
  const auto db = dir / "rms.db", table = dir / "rms.json";
  if (!fs::exists(db)) {
    const auto r = rt_test::run(std::string(VKTUNE_BINARY) + " rmsnorm_mul" + device_arg() +
                                " --shape 4,1000 --budget 2 --seed 5 --db " + db.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  const auto r = rt_test::run(std::string(VKTUNE_BINARY) + " export --format json -o " + table.string() + " --db " +
                              db.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (change) {
    auto doc = nlohmann::json::parse(rt_test::read_file(table));
    EXPECT_EQ(doc["winners"].size(), 1u);
    change(doc["winners"][0]);
    rt_test::rehash(doc);
    rt_test::write_file(table, doc.dump(2) + "\n");
  }
  return table;
}

rt_test::RunResult c_example(const fs::path& table, const std::string& args) {
  auto r = rt_test::run(std::string(VKTUNE_RUNTIME_RMSNORM) + " " + table.string() + device_arg() + " " + args);
  std::printf("%s", r.output.c_str());
  return r;
}

}  // namespace

TEST(RuntimeCExample, DispatchesTheTunedVariantAtTunedAndOtherShapes) {
  const auto dir = rt_test::fresh_dir("c-example");
  const auto table = rmsnorm_table(dir);
  auto r = c_example(table, "--shape 4,1000");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "exact shape 4,1000");
  expect_contains(r.output, ": OK");
  // More rows and a longer row than tuned: the contract's rules size the
  // buffers and the dispatch for them.
  r = c_example(table, "--shape 9,4099 --seed 3");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.output, "nearest shape 4,1000");
  expect_contains(r.output, ": OK");
  fs::remove_all(dir);
}

TEST(RuntimeCExample, AWrongContractIsCaughtByItsCheck) {
  const auto dir = rt_test::fresh_dir("c-example-wrong");
  rmsnorm_table(dir);
  // Half the rows' workgroups (twice the rows per workgroup): the other half of y stays NaN.
  const auto table = rmsnorm_table(dir, [](nlohmann::json& w) {
    auto& divisor = w["contract"]["stages"][0]["dispatch"][0]["divisor"];
    divisor = 2 * divisor.get<int>();
  });
  auto r = c_example(table, "--shape 8,1000");
  EXPECT_EQ(r.exit_code, 1);
  expect_contains(r.output, "MISMATCH");
  // Bad arguments and a table without rmsnorm_mul.
  EXPECT_EQ(c_example(table, "--shape 8").exit_code, 2);
  r = c_example(rt_test::tuned_db(), "--shape 8,1000");
  EXPECT_EQ(r.exit_code, 3);
  expect_contains(r.output, "rmsnorm_mul");
  fs::remove_all(dir);
}
