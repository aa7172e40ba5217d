// The vktune command line as a user meets it: bad input gives one line and a
// non-zero exit without touching the database, and a run killed mid-way
// resumes without measuring anything twice or losing anything.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "results/store.hpp"

#include "tests/support/vktune_process.hpp"

namespace {

namespace fs = std::filesystem;

using vktune::testing::RunResult;

class CliTest : public vktune::testing::VktuneProcessTest {
 protected:
  fs::path db = dir / "sub" / "results.db";

  static std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
};

TEST_F(CliTest, ReplayScoresAStrategyAndRejectsBadInputInOneLine) {
  const std::string csv = std::string(VKTUNE_SOURCE_DIR) + "/measurements/nvidia-h200/measurements_session5.csv";
  auto ok = run("replay attention_decode --from " + csv + " --budget 20 --runs 2 --strategy random --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["format"], "vktune-replay");
  EXPECT_EQ(j["version"], 2);
  ASSERT_EQ(j["shapes"].size(), 3u);
  for (const auto& s : j["shapes"]) {
    EXPECT_EQ(s["budget"], 20);
    EXPECT_LE(s["median_quality"].get<double>(), 1.0);
    EXPECT_GT(s["median_quality"].get<double>(), 0.5);
  }
  struct Case {
    std::string args, words;
  };
  const Case cases[] = {
      {"attention_decode --from " + csv + " --strategy nope", "{anneal,exhaustive,model,random}"},
      {"attention_decode --from " + dir.string() + "/missing.csv", "missing.csv"},
      {"rmsnorm --from " + csv, "no measurement of rmsnorm"},
      {"attention_decode --from " + csv + " --shape 32,8,128,1024", "measured shapes"},
      {"attention_decode", "exactly one of --from"},
      {"nope --from " + csv, "nope"},
  };
  for (const auto& c : cases) {
    const auto r = run("replay " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(lines(r.err), 1u) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.words), std::string::npos) << c.args << ": " << r.err;
  }
}

// Issue 39: measurements_session3.csv made six kernels' replays exit 5 (an
// internal error: configs of two parameter vocabularies in one space). They
// replay now; a file that cannot be read is one line and exit 2.
TEST_F(CliTest, ReplayReadsEveryCommittedSetAndRejectsUnreadableFilesInOneLine) {
  const std::string session3 = std::string(VKTUNE_SOURCE_DIR) + "/measurements/nvidia-h200/measurements_session3.csv";
  for (const char* kernel : {"attention_decode", "matmul_f16", "matmul_q4_0", "matmul_q5k", "matmul_q6k", "matmul_q8_0"}) {
    const auto r = run(std::string("replay ") + kernel + " --from " + session3 + " --runs 1 --budget 4 --strategy random");
    EXPECT_EQ(r.exit_code, 0) << kernel << ": " << r.err;
  }
  fs::create_directories(dir);
  const auto not_db = (dir / "not_a_database.db").string();
  std::ofstream(not_db) << "this is no SQLite file\n";
  const auto bad_shape = (dir / "bad_shape.csv").string();
  std::ofstream(bad_shape) << "kernel,shape,cache_mode,config,status,median_ns\nadd,\"1,2,3,4,5\",cold,\"{\"\"A\"\":1}\",ok,5\n";
  const auto bad_config = (dir / "bad_config.csv").string();
  std::ofstream(bad_config) << "kernel,shape,cache_mode,config,status,median_ns\nadd,\"1,4096\",cold,{oops,ok,5\n";
  for (const auto& args : {"add --db " + not_db, "add --from " + bad_shape, "add --from " + bad_config}) {
    const auto r = run("replay " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << args << ": " << r.err;
    const auto file = args.substr(args.rfind(' ') + 1);
    EXPECT_NE(r.err.find(file), std::string::npos) << args << ": " << r.err;
  }
}

// `replay --time` runs against a simulated clock: the committed exports hold
// no durations, so each evaluation costs the assumed second, and the JSON
// gives both the evaluations and the seconds each run took to within 1%.
TEST_F(CliTest, ReplayTimeIsASimulatedClockReportedInEvaluationsAndSeconds) {
  const std::string csv = std::string(VKTUNE_SOURCE_DIR) + "/measurements/nvidia-h200/measurements_session5.csv";
  const auto r = run("replay attention_decode --from " + csv + " --time 40s --runs 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["time_seconds"], 40.0);
  for (const auto& s : j["shapes"]) {
    EXPECT_EQ(s["durations"], "assumed");
    EXPECT_EQ(s["median_seconds_used"], 40.0);
    if (!s["median_evaluations_within_1pct"].is_null()) {
      EXPECT_EQ(s["median_seconds_within_1pct"], s["median_evaluations_within_1pct"]);
    }
  }
}

// With nothing to end its shapes, a tune searched every config of every
// shape (on an H200 the main command ran past 300 s on 4 of 6 shapes): each
// shape now stops when its search has converged or at a cap, and the header
// says the rule and the most it can take; --exhaustive keeps the old way.
TEST_F(CliTest, ATuneWithNoBoundStopsEachShapeWhenItConverges) {
  const auto r = run("add --device 0 --shape 64,4096 --seed 3 --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bounded by default: each shape stops after 40 variants in a row without one over 1% faster "
                       "than its best, or at 300 variants"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("at most 1 shape x 301 variants"), std::string::npos) << r.out;
  const auto bounded = run("add --device 0 --shape 64,1024 --seed 3 --budget 2 --db " + db.string());
  EXPECT_EQ(bounded.out.find("bounded by default"), std::string::npos) << bounded.out;
  // This run has the first one's rows to estimate the time from; its header
  // is what is asserted, so --only leaves it 15 configs to search.
  const auto text =
      run("add --device 0 --shape 64,512 --seed 3 --only SUBGROUP_SIZE=0 --only VEC=4 --db " + db.string());
  EXPECT_NE(text.out.find(", at most about "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" s a variant took on this device before"), std::string::npos) << text.out;
}

TEST_F(CliTest, HelpWorksEverywhere) {
  EXPECT_EQ(run("--help").exit_code, 0);
  EXPECT_EQ(run("matmul_q4k --help").exit_code, 0);
  EXPECT_EQ(run("check --help").exit_code, 0);
  EXPECT_EQ(run("list --help").exit_code, 0);
  const auto replay = run("replay --help");
  EXPECT_EQ(replay.exit_code, 0);
  EXPECT_NE(replay.out.find("model"), std::string::npos);  // the registered strategies
  const auto tune = run("matmul_q4k --help");
  EXPECT_NE(tune.out.find("anneal, exhaustive, model, random"), std::string::npos);
}

TEST_F(CliTest, ListNamesKernelParametersAndShapes) {
  auto r = run("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& k : j.at("kernels"))
    if (k["name"] == "matmul_q4k") {
      found = true;
      EXPECT_EQ(k["spaces"].size(), 2u);
      EXPECT_FALSE(k["default_shapes"].empty());
    }
  EXPECT_TRUE(found);
}

TEST_F(CliTest, ListShowsPathsRulesAndSizesAndRejectsABadSpace) {
  auto r = run("list attention_decode --device 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("path walk:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pruning walk.wg256-winners-only [NVIDIA (0x10de)]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at 32,8,128,8192 on "), std::string::npos) << r.out;
  auto bad = run("list --space nope");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("nope"), std::string::npos) << bad.err;
  auto check = run("check softmax --space nope");
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_EQ(lines(check.err), 1u) << check.err;
}

TEST_F(CliTest, UnknownKernelIsOneLineUsageError) {
  auto r = run("matmul_q9z --device 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("matmul_q9z"), std::string::npos) << r.err;
}

TEST_F(CliTest, BadInputsLeaveTheDatabaseUntouched) {
  struct Case {
    std::string args, mentions;
    int code;
  };
  const Case cases[] = {
      {"--shape 1,4096,300", "256", 2},
      {"--shape 1,4096", "malformed shape", 2},
      {"--shape 1,x,256", "malformed shape", 2},
      {"--shape 1,4194304,65536", "too large", 2},
      {"--strategy genetic", "genetic", 2},
      {"--space nope", "nope", 2},
      {"--cache lukewarm", "{cold,hot}", 2},
      {"--time soon", "duration", 2},
      {"--time 1e12h", "out of range", 2},
      {"--time 600000m", "out of range", 2},
      {"--budget -1", "'-1' is not a whole number", 2},
      {"--budget 18446744073709551616", "'18446744073709551616' is not a whole number", 2},
      {"--budget 1e3", "'1e3' is not a whole number", 2},
      {"--converge -2", "'-2' is not a whole number", 2},
      {"--device -1", "'-1' is not a whole number", 2},
      {"--no-such-option", "no-such-option", 2},
      {"--device 99", "99", 4},
      {"--shape 1,256,256 --only X_QUANT", "NAME=VALUE", 2},
      {"--shape 1,256,256 --only X_QUANT=one", "not an integer", 2},
      {"--shape 1,256,256 --only NO_SUCH=1", "no parameter NO_SUCH", 2},
      {"--shape 1,256,256 --only X_QUANT=7", "not a candidate value", 2},
      {"--shape 64,256,256 --only X_QUANT=1", "prefill space", 2},
  };
  for (const auto& c : cases) {
    auto r = run("matmul_q4k --db " + db.string() + " " + c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(fs::exists(db)) << c.args;
  }
}

// A kernel author's --templates directory holds the kernels being edited.
// The device's ceilings are vktune's own measurement, made with the embedded
// templates: a directory without ceiling_*.comp tunes on a fresh database
// and the ceilings are measured and stored.
TEST_F(CliTest, ATemplatesDirectoryNeedNotHoldTheCeilingKernels) {
  const fs::path templates = dir / "templates";
  fs::copy(fs::path(VKTUNE_SOURCE_DIR) / "templates", templates, fs::copy_options::recursive);
  std::vector<fs::path> ceiling_kernels;
  for (const auto& e : fs::directory_iterator(templates)) {
    if (e.path().filename().string().rfind("ceiling_", 0) == 0) ceiling_kernels.push_back(e.path());
  }
  ASSERT_GE(ceiling_kernels.size(), 3u);
  for (const auto& path : ceiling_kernels) fs::remove(path);
  auto r = run("add --device 0 --shape 4,256 --budget 1 --no-transfer --json --templates " + templates.string() +
               " --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["ceilings"]["read_gbps"].get<double>(), 0);
  EXPECT_GT(j["ceilings"]["dependent_dispatch_us"].get<double>(), 0);
  EXPECT_TRUE(j["shapes"][0].contains("winner")) << r.out;
}

TEST_F(CliTest, KilledRunResumesWithoutLosingOrRepeatingWork) {
  const std::string shape = "1,37,1024";
  const std::string args = "matmul_q4k --device 0 --shape " + shape + " --seed 5 --budget 24 --db " + db.string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string command = std::string(VKTUNE_BINARY) + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until a few measurements are committed, then kill without warning.
  std::size_t before = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < give_up) {
    if (fs::exists(db)) {
      try {
        auto store = vktune::results::Store::open_read_only(db);
        for (const auto& [id, device] : store.devices()) before = store.measurements(id, "matmul_q4k", shape, "cold").size();
      } catch (const std::exception&) {
      }
    }
    if (before >= 3) break;
    if (waitpid(child, nullptr, WNOHANG) == child) FAIL() << "the first run ended on its own before it could be killed";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_GE(before, 3u) << "the first run committed too little before the deadline";

  // Rows with a result; an `attempt` row marks a variant that was being put
  // on the device when the kill came (it cannot be told from a crash, so a
  // resumed run records it as `crashed`: engine/attempt_log.hpp).
  auto count_rows = [&](bool attempts) {
    std::size_t n = 0;
    auto store = vktune::results::Store::open_read_only(db);
    for (const auto& [id, device] : store.devices())
      for (const auto& m : store.measurements(id, "matmul_q4k", shape, "cold"))
        n += (m.status == vktune::results::Status::attempt ||
              m.status == vktune::results::Status::crashed) == attempts;
    return n;
  };
  const std::size_t committed = count_rows(false), attempts = count_rows(true);
  EXPECT_LE(attempts, 5u);  // one dispatch and up to a batch (4) of pipeline creations in flight
  auto r = run(args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "vktune-tune");
  EXPECT_EQ(j["version"], 2);
  EXPECT_GT(j["ceilings"]["read_gbps"].get<double>(), 0);
  EXPECT_GT(j["ceilings"]["dependent_dispatch_us"].get<double>(), 0);
  // lavapipe has no cooperative matrices: no tensor-core ceiling.
  EXPECT_EQ(j["ceilings"]["tensor_fp16_gflops"].get<double>(), 0);
  EXPECT_EQ(j["ceilings"]["tensor_fp16_shared_gflops"].get<double>(), 0);
  ASSERT_EQ(j["shapes"].size(), 1u);
  std::size_t resumed = 0, total = 0, crashed = 0;
  for (const auto& o : j["shapes"][0]["outcomes"]) {
    ++total;
    if (o["status"] == "crashed") ++crashed;
    else if (o["resumed"].get<bool>()) ++resumed;
  }
  EXPECT_EQ(resumed, committed);  // everything committed before the kill is reused...
  EXPECT_LE(crashed, attempts);
  EXPECT_EQ(j["shapes"][0]["time_spent"]["search"]["variants_measured"].get<std::size_t>(), total - resumed - crashed);
  EXPECT_EQ(count_rows(false), total - crashed);  // ...and every variant of the run is now stored once
  EXPECT_TRUE(j["shapes"][0].contains("winner"));
}

}  // namespace
