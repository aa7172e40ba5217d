// Isolation, through the built vktune on the test device: a variant whose
// compile never ends (a macro expanded 2^24 times), a worker that crashes,
// hangs or hoards memory in either phase (the VKTUNE_TEST_WORKER_* hooks of
// engine/isolated_worker.cpp) is recorded with a status of its own and the
// run goes on, within its budget; a worker that cannot start is one line
// and exit 5; a --compile-timeout out of range is a usage error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../results/cli_run.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using results::testing::quoted;
using results::testing::run_vktune;

const fs::path kHostile = fs::path(VKTUNE_SOURCE_DIR) / "tests/cli/data/hostile/hostile.json";

class Isolation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vktune_isolation_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A tune of the hostile kernel, every config of `only` (and the baseline).
  results::testing::CliRun tune(const std::string& env, const std::string& only, const std::string& more = "") {
    return run_vktune(quoted(kHostile) + " --device 0 --strategy exhaustive --seed 7 --db " + quoted(dir_ / "t.db") +
                          (only.empty() ? "" : " --only MODE=" + only) + " " + more,
                      dir_ / "stderr.txt", env.empty() ? "" : "env " + env + " ");
  }
  fs::path dir_;
};

TEST_F(Isolation, ACompileBombIsEndedAtItsDeadlineAndTheRunEndsWithinItsBudget) {
  const auto start = std::chrono::steady_clock::now();
  // A deadline that an ordinary variant meets on a loaded 2-core machine
  // (idle, each compiles in well under a second) and the bomb never does.
  const auto r = tune("", "", "--compile-timeout 12 --time 60s");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "the run took " << seconds << " s\n";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("isolation: compiles and pipelines in up to"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 x compile_timeout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 evaluated, 1 failed"), std::string::npos) << r.out;
  // --time is a bound: 1.05 T + 10 s.
  EXPECT_LT(seconds, 1.05 * 60 + 10);
  const auto failures = run_vktune("results --failures --db " + quoted(dir_ / "t.db"), dir_ / "stderr2.txt");
  EXPECT_NE(failures.out.find("compile_timeout  {\"MODE\":1}  compiling it passed its deadline of 12 s"),
            std::string::npos)
      << failures.out;
}

TEST_F(Isolation, AWorkerThatCrashesWhileCompilingFailsItsVariantOnly) {
  const auto r = tune("VKTUNE_TEST_WORKER_CRASH=compile:MODE=2", "2,3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 x compile_crash"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 evaluated, 1 failed"), std::string::npos) << r.out;
  const auto failures = run_vktune("results --failures --db " + quoted(dir_ / "t.db"), dir_ / "stderr2.txt");
  EXPECT_NE(failures.out.find("compiling it crashed the worker (signal 11 (SIGSEGV))"), std::string::npos)
      << failures.out;
}

TEST_F(Isolation, AWorkerThatCrashesCreatingAPipelineFailsItsVariantOnly) {
  const auto r = tune("VKTUNE_TEST_WORKER_CRASH=pipeline:MODE=3", "2,3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 x pipeline_crash"), std::string::npos) << r.out;
}

TEST_F(Isolation, APipelineThatNeverEndsIsEndedAtItsDeadline) {
  const auto r = tune("VKTUNE_TEST_WORKER_HANG=pipeline:MODE=2", "2", "--compile-timeout 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 x pipeline_timeout"), std::string::npos) << r.out;
}

TEST_F(Isolation, AWorkerPastItsMemoryCapIsEnded) {
  const auto r = tune("VKTUNE_TEST_WORKER_MEMORY=compile:MODE=3 VKTUNE_TEST_WORKER_MEMORY_CAP_MB=256", "3",
                      "--compile-timeout 60");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 x compile_memory"), std::string::npos) << r.out;
}

TEST_F(Isolation, TheGateRecordsTheBombAndExitsOne) {
  const auto r = run_vktune("check " + quoted(kHostile) + " --device 0 --variants all --compile-timeout 3",
                            dir_ / "stderr.txt");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("compile_timeout"), std::string::npos) << r.out << r.err;
}

TEST_F(Isolation, AWorkerThatCannotStartIsOneLineAndExitFive) {
  const auto r = tune("VKTUNE_TEST_WORKER_PROGRAM=/nonexistent/vktune", "2");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("cannot start a worker process (/nonexistent/vktune): No such file or directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Isolation, WithJsonTheLiveLineStillGoesToStderr) {
  const auto r = tune("", "2", "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("hostile_add 1000: "), std::string::npos) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_NE(report.at("isolation").get<std::string>().find("worker processes"), std::string::npos) << r.out;
}

TEST_F(Isolation, JobsSetsHowManyWorkersBuildVariants) {
  const auto r = tune("", "2", "--jobs 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("isolation: compiles and pipelines in up to 1 worker process;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 evaluated, 0 failed"), std::string::npos) << r.out;  // MODE=2 and the baseline
  for (const std::string value : {"0", "-1", "300", "many"}) {
    const auto bad = tune("", "2", "--jobs " + value);
    EXPECT_EQ(bad.exit_code, 2) << value << ": " << bad.err;
    EXPECT_NE(bad.err.find("--jobs"), std::string::npos) << value << ": " << bad.err;
  }
}

TEST_F(Isolation, ACompileTimeoutOutOfRangeIsAUsageError) {
  for (const std::string value : {"0", "-1", "5000", "soon"}) {
    const auto r = tune("", "2", "--compile-timeout " + value);
    EXPECT_EQ(r.exit_code, 2) << value << ": " << r.err;
    EXPECT_NE(r.err.find("--compile-timeout"), std::string::npos) << value << ": " << r.err;
  }
}

}  // namespace
}  // namespace vktune
