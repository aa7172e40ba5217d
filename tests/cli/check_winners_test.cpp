// `vktune check --variants winners` checks every winner stored for this GPU
// at its own shape (and at --shape), says per winner what was checked and
// what could not be, and says when a kernel has no winner instead of
// checking its baseline. Runs the binary on device 0 with a tiny tune.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "results/store.hpp"

#include "tests/support/vktune_process.hpp"

namespace {

namespace fs = std::filesystem;

using vktune::testing::RunResult;

class CheckWinnersTest : public vktune::testing::VktuneProcessTest {
 protected:
  fs::path db = dir / "tuned.db";

  // The config as `check` prints it: NAME=VALUE in name order, space-separated.
  static std::string config_text(const nlohmann::json& config) {
    std::string text;
    for (const auto& [name, value] : config.items()) {
      text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value.get<int>());
    }
    return text;
  }

  // The line of `out` that starts with `prefix`, "" when none.
  static std::string line_starting(const std::string& out, const std::string& prefix) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(prefix, 0) == 0) return line;
    }
    return "";
  }

  // Tunes add at a tiny shape that is none of its default or check shapes;
  // returns the winner the database now holds.
  vktune::results::Winner tune_add() {
    const auto tune = run("add --device 0 --shape 3,200 --budget 2 --seed 5 --no-transfer --db " + db.string());
    EXPECT_EQ(tune.exit_code, 0) << tune.err;
    auto store = vktune::results::Store::open_read_only(db);
    const auto winners = store.winners({}, "add");
    EXPECT_EQ(winners.size(), 1u);
    return winners.empty() ? vktune::results::Winner{} : winners.front();
  }
};

TEST_F(CheckWinnersTest, ChecksTheStoredWinnerAtItsOwnShape) {
  const auto winner = tune_add();
  ASSERT_EQ(winner.shape, "3,200");
  const auto config = nlohmann::json::parse(winner.config_json);

  const auto text = run("check add --device 0 --variants winners --seed 2 --db " + db.string());
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  const auto line = line_starting(text.out, "winner add 3,200 (cold, driver ");
  EXPECT_NE(line.find("[" + config_text(config) + "]: passed at 3,200"), std::string::npos) << text.out;
  // Only the winner, at its shape: not the check shapes, not the baseline.
  EXPECT_NE(text.out.find("add 3,200: 1 variant checked, 0 failed"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 passed, 0 failed"), std::string::npos) << text.out;

  const auto json = run("check add --device 0 --variants winners --seed 2 --json --db " + db.string());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("format"), "vktune-check");
  EXPECT_EQ(j.at("version"), 1);
  ASSERT_EQ(j.at("winners").size(), 1u);
  const auto& w = j["winners"][0];
  EXPECT_EQ(w.at("shape"), "3,200");
  EXPECT_EQ(w.at("cache"), "cold");
  EXPECT_EQ(w.at("config"), config);
  ASSERT_EQ(w.at("checks").size(), 1u);
  EXPECT_EQ(w["checks"][0], (nlohmann::json{{"shape", "3,200"}, {"status", "passed"}}));
  ASSERT_EQ(j.at("shapes").size(), 1u);
  EXPECT_EQ(j["shapes"][0], (nlohmann::json{{"kernel", "add"}, {"shape", "3,200"}, {"variants", 1}, {"failed", 0}}));
  EXPECT_TRUE(j.at("kernels_without_winners").empty());
  EXPECT_TRUE(j.at("unchecked_winners").empty());
}

// --shape adds a shape where the winner is legal; a winner that no shape
// admits (here one whose workgroup covers the array eight times over, which
// the kernel refuses on any device) is listed as not checked with the reason.
TEST_F(CheckWinnersTest, AlsoChecksAtGivenShapesAndListsWhatCannotRun) {
  auto winner = tune_add();
  ASSERT_FALSE(winner.config_json.empty());
  auto too_wide = winner;
  too_wide.cache_mode = "hot";  // a second key of the same shape
  too_wide.config_json = nlohmann::json{{"EPT", 4}, {"SUBGROUP_SIZE", 0}, {"VEC", 4}, {"WG_SIZE", 1024}}.dump();
  too_wide.updated_at.clear();
  {
    auto store = vktune::results::Store::open(db);
    store.set_winner(too_wide);
  }
  const auto r = run("check add --device 0 --variants winners --shape 6,400 --seed 2 --json --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("winners").size(), 2u);
  for (const auto& w : j["winners"]) {
    ASSERT_EQ(w.at("checks").size(), 2u) << w.dump();
    EXPECT_EQ(w["checks"][0]["shape"], "3,200");
    EXPECT_EQ(w["checks"][1]["shape"], "6,400");
    if (w.at("cache") == "cold") {
      EXPECT_EQ(w.at("config"), nlohmann::json::parse(winner.config_json));
      EXPECT_EQ(w["checks"][0]["status"], "passed") << w.dump();
      EXPECT_EQ(w["checks"][1]["status"], "passed") << w.dump();
    } else {
      for (const auto& c : w["checks"]) {
        EXPECT_EQ(c.at("status"), "not checked") << w.dump();
        EXPECT_NE(c.at("reason").get<std::string>().find("over half the lanes idle"), std::string::npos) << w.dump();
      }
    }
  }
  ASSERT_EQ(j.at("unchecked_winners").size(), 1u);
  EXPECT_EQ(j["unchecked_winners"][0]["source"], "database");
  EXPECT_EQ(j["unchecked_winners"][0]["config"]["WG_SIZE"], 1024);
  EXPECT_EQ(j.at("passed"), 2);
  EXPECT_EQ(j.at("failed"), 0);
}

TEST_F(CheckWinnersTest, AKernelWithoutWinnersIsSaidAndItsBaselineNotChecked) {
  tune_add();
  const auto r = run("check softmax --device 0 --variants winners --db " + db.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a gate that checks nothing fails
  EXPECT_NE(r.err.find("check: nothing was checked"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("no stored winner of softmax for "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(db.string() + ": nothing checked"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("variants checked"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 passed, 0 failed"), std::string::npos) << r.out;

  const auto j = nlohmann::json::parse(run("check softmax --device 0 --variants winners --json --db " + db.string()).out);
  EXPECT_EQ(j.at("kernels_without_winners"),
            (nlohmann::json::array({{{"kernel", "softmax"}, {"winners_for_other_devices", 0}}})));
  EXPECT_TRUE(j.at("shapes").empty());
}

TEST_F(CheckWinnersTest, AMissingDatabaseIsBadInputAndIsNotCreated) {
  const auto missing = dir / "typo.db";
  const auto r = run("check add --device 0 --variants winners --db " + missing.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no results database at " + missing.string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(missing));
  const auto two = run("check add softmax --device 0 --shape 4,256");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--shape needs exactly one KERNEL"), std::string::npos) << two.err;
}

}  // namespace
