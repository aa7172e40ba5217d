// A spec whose reference is one line of expression, through the built
// vktune on the test device: examples/transpose (a tiled transpose checked
// against "y[c][r] = x[r][c]" with tolerance 0) passes `vktune check` as it
// ships; the same template made wrong for some variants (indices swapped,
// or values one ulp off) fails exactly those; a reference that reads outside
// its array, or that does not parse, stops the run with one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "../results/cli_run.hpp"
#include "spec_cli_fixture.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::read_text;
using results::testing::run_vktune;

const fs::path kTranspose = fs::path(VKTUNE_EXAMPLES_DIR) / "transpose";

class SpecExpressionCli : public testing_support::SpecFolderTest {
 protected:
  SpecExpressionCli() : SpecFolderTest("vktune_spec_expression") {}
  void SetUp() override {
    SpecFolderTest::SetUp();
    spec_ = json::parse(read_text(kTranspose / "transpose.json"), nullptr, true, true);
    shader_ = read_text(kTranspose / "transpose.comp");
  }

  // The example's shader with its store `tile[lx][ly]` replaced by `store`.
  void write_shader(const std::string& store) {
    const std::string original = "= tile[lx][ly];";
    std::string text = shader_;
    ASSERT_NE(text.find(original), std::string::npos);
    text.replace(text.find(original), original.size(), "= " + store + ";");
    std::ofstream(dir_ / "transpose.comp") << text;
  }
  results::testing::CliRun check(const std::string& device = "0") {
    std::ofstream(dir_ / "transpose.json") << spec_.dump(2);
    return run_vktune("check " + quoted(dir_ / "transpose.json") + " --device " + device + " --json",
                      dir_ / "stderr.txt");
  }
  // Every failure is a wrong result of a config that `wrong` picks, and
  // each config `wrong` picks failed at least once while others passed.
  template <class Wrong>
  static void expect_only(const json& report, Wrong wrong) {
    EXPECT_GT(report.at("passed").get<int>(), 0) << report.dump();
    int picked = 0;
    for (const auto& f : report.at("failures")) {
      EXPECT_EQ(f.at("status"), "wrong_result") << f.dump();
      EXPECT_TRUE(wrong(f.at("config"))) << f.dump();
      picked += wrong(f.at("config")) ? 1 : 0;
    }
    EXPECT_GT(picked, 0) << report.dump();
  }

  json spec_;
  std::string shader_;
};

TEST_F(SpecExpressionCli, ATransposeChecksExactlyAgainstItsExpression) {
  write_shader("tile[lx][ly]");
  const auto r = check();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = json::parse(r.out);
  EXPECT_EQ(report.at("failed"), 0) << r.out;
  EXPECT_GE(report.at("passed").get<int>(), 4) << r.out;  // TILE x PAD, over the check shapes
}

TEST_F(SpecExpressionCli, AWrongTransposeFailsOnlyWhereItIsWrong) {
  // The tile read back along rows: the 16-wide variants copy instead of transposing.
  write_shader("(TILE == 16 ? tile[ly][lx] : tile[lx][ly])");
  auto r = check();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  expect_only(json::parse(r.out), [](const json& config) { return config.at("TILE") == 16; });

  // One ulp off (x (1 + 2^-23)) where PAD is 0: tolerance 0 lets nothing through.
  write_shader("tile[lx][ly] * (PAD == 0 ? 1.00000012 : 1.0)");
  r = check();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  expect_only(json::parse(r.out), [](const json& config) { return config.at("PAD") == 0; });
}

TEST_F(SpecExpressionCli, AReferenceThatCannotRunIsOneLineAndExitTwo) {
  write_shader("tile[lx][ly]");
  spec_["reference"]["expression"] = "y[c][r] = x[r][c + 1]";
  auto r = check();
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find((dir_ / "transpose.json").string() +
                       ": /reference/expression: the read x[r][c + 1] is outside x for y[16][0] at shape 33,17: "
                       "its index 2 is 17 (0..16)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  // One that does not compile is refused at load, before any device (none has index 999).
  spec_["reference"]["expression"] = "y[c][r] = x[r][c] +";
  r = check("999");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(": /reference/expression: the right side 'x[r][c] +' does not compile"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace vktune
