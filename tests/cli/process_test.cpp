// The vktune process under stress, as a subprocess: interrupted by signals,
// crashing inside a variant, left with an abandoned device after a GPU
// timeout, and sharing a device with another tuner.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "reference/gguf_writer.hpp"
#include "results/sqlite.hpp"
#include "results/store.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class ProcessTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-process-" + std::to_string(std::random_device{}()));
  fs::path db = dir / "results.db";
  fs::path out = dir / "out.txt", err = dir / "err.txt";
  void SetUp() override { fs::create_directories(dir / "runtime"); }
  void TearDown() override { fs::remove_all(dir); }

  static std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
  }

  // Starts `env ENV vktune ARGS` with its own lock directory.
  pid_t start(const std::string& args, const std::string& env = "") {
    const std::string command = "exec env VKTUNE_LOCK_DIR=" + (dir / "runtime").string() + " " + env + " " +
                                VKTUNE_BINARY + " " + args + " >" + out.string() + " 2>" + err.string();
    const pid_t child = fork();
    if (child == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return child;
  }

  // waitpid with a deadline; kills the child when it passes. The raw status.
  static std::optional<int> wait_for(pid_t child, std::chrono::seconds limit) {
    const auto give_up = Clock::now() + limit;
    int status = 0;
    while (Clock::now() < give_up) {
      if (waitpid(child, &status, WNOHANG) == child) return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return std::nullopt;
  }

  // Every measurement row of `kernel` in the database at `path` (any shape).
  static std::vector<vktune::results::Measurement> rows(const fs::path& path, const std::string& kernel) {
    std::vector<vktune::results::Measurement> found;
    if (!fs::exists(path)) return found;
    try {
      auto store = vktune::results::Store::open_read_only(path);
      for (const auto& m : store.all_measurements())
        if (m.kernel == kernel) found.push_back(m.measurement);
    } catch (const std::exception&) {
    }
    return found;
  }

  // Rows with a result (not an attempt in flight).
  static std::size_t results_in(const std::vector<vktune::results::Measurement>& found) {
    return static_cast<std::size_t>(std::count_if(found.begin(), found.end(), [](const auto& m) {
      return m.status != vktune::results::Status::attempt;
    }));
  }

  // Waits until the database holds at least `n` results of `kernel`. Idle,
  // the first rows land within 3 s; the limit is for a CI machine running
  // the correctness gate beside two tests, not a measurement.
  bool wait_for_rows(const std::string& kernel, std::size_t n, pid_t child) {
    const auto give_up = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < give_up) {
      if (results_in(rows(db, kernel)) >= n) return true;
      if (waitpid(child, nullptr, WNOHANG) == child) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  const std::string tune_add = "add --device 0 --shape 64,4096 --seed 3 --strategy random --budget 400 --db ";
};

TEST_F(ProcessTest, SigintAndSigtermStopBetweenVariantsWithTheResultsInTheDbFile) {
  for (const auto& [signal_number, code] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
    fs::remove(db);
    const pid_t child = start(tune_add + db.string());
    ASSERT_TRUE(wait_for_rows("add", 3, child)) << read(err);
    kill(child, signal_number);
    const auto status = wait_for(child, std::chrono::seconds(30));
    ASSERT_TRUE(status.has_value()) << "did not stop after the signal";
    ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
    EXPECT_EQ(WEXITSTATUS(*status), code);
    const auto stderr_text = read(err);
    EXPECT_NE(stderr_text.find("run the same command again to resume"), std::string::npos) << stderr_text;
    EXPECT_NE(read(out).find("add 64,4096"), std::string::npos) << read(out);  // the summary so far
    // The shape in progress is listed as stopped partway, not counted as done.
    EXPECT_NE(stderr_text.find("after 0 of 1 shape and part of one more; measured so far: "), std::string::npos)
        << stderr_text;
    EXPECT_NE(stderr_text.find("(stopped partway)"), std::string::npos) << stderr_text;
    // The .db file alone, copied without its WAL, holds every result row.
    const auto copy = dir / "copy.db";
    fs::copy_file(db, copy);
    const auto kept = rows(copy, "add");
    EXPECT_GE(kept.size(), 3u);
    EXPECT_EQ(kept.size(), rows(db, "add").size());
    for (const auto& m : kept) EXPECT_NE(m.status, vktune::results::Status::attempt) << m.variant_hash;
    fs::remove(copy);
  }
}

TEST_F(ProcessTest, TheFirstSignalEndsAWaitForTheDatabaseLockOfAnotherProcess) {
  const pid_t child = start(tune_add + db.string());
  ASSERT_TRUE(wait_for_rows("add", 2, child)) << read(err);
  // Another process takes the write lock and keeps it: the tune's next
  // result waits for it.
  auto holder = vktune::results::sqlite::Connection::open(db, vktune::results::sqlite::Connection::Mode::read_write_create);
  holder.exec("BEGIN IMMEDIATE");
  std::this_thread::sleep_for(std::chrono::seconds(3));  // a few variants' time on lavapipe: it waits by now
  const auto rows_before = rows(db, "add").size();
  kill(child, SIGINT);
  // Ended by the one signal while the lock is still held (it used to wait
  // for the lock, and only a second signal ended it): the variant in flight,
  // then at most 2 s more of waiting for locks.
  const auto status = wait_for(child, std::chrono::seconds(30));
  ASSERT_TRUE(status.has_value()) << "still waiting for the lock after the signal\n" << read(err);
  ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 130) << read(err);
  holder.exec("ROLLBACK");
  EXPECT_EQ(rows(db, "add").size(), rows_before) << "nothing written after the lock was taken";
}

TEST_F(ProcessTest, ASignalDuringADequantizationLeavesNeitherOutputNorTemporaryFile) {
  // An F16 tensor of 32M values: 128 MiB to write, in 1-MiB chunks, which
  // takes far longer than the poll below needs to see its temporary file.
  const fs::path model = dir / "model.gguf", output_dir = dir / "dequant";
  fs::create_directories(output_dir);
  {
    std::vector<std::uint8_t> halves(std::size_t{2} << 25);
    std::mt19937 random(5);
    for (auto& byte : halves) byte = static_cast<std::uint8_t>(random() & 0x3f);  // finite halves
    vktune::ref::GgufWriter writer;
    writer.add_tensor("w", vktune::ref::GgmlType::F16, {4096, 8192}, std::move(halves));
    writer.write(model);
  }
  const pid_t child = start("gguf " + model.string() + " --dequant w -o " + (output_dir / "w.f32").string());
  // Its temporary file exists once the signal handlers are in place.
  const auto give_up = Clock::now() + std::chrono::seconds(60);
  while (fs::is_empty(output_dir) && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::microseconds(200));
  ASSERT_FALSE(fs::is_empty(output_dir)) << read(err);
  kill(child, SIGINT);
  const auto status = wait_for(child, std::chrono::seconds(30));
  ASSERT_TRUE(status.has_value());
  // Before: the default action ended it by the signal and left a hidden
  // ".w.f32.<pid>.<n>.partial" of up to the whole tensor.
  ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 130) << read(err);
  EXPECT_NE(read(err).find("interrupted"), std::string::npos) << read(err);
  EXPECT_TRUE(fs::is_empty(output_dir)) << fs::directory_iterator(output_dir)->path();
}

TEST_F(ProcessTest, ASecondSignalStopsAtOnce) {
  const pid_t child = start(tune_add + db.string());
  ASSERT_TRUE(wait_for_rows("add", 1, child)) << read(err);
  kill(child, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a second press, not one signal sent twice
  kill(child, SIGINT);
  // At once: before the variant in flight ends (one of these takes seconds on lavapipe
  // under load) but a scheduler's slice is not held against it.
  const auto status = wait_for(child, std::chrono::seconds(10));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 130);
}

TEST_F(ProcessTest, AVariantThatCrashesTheProcessIsRecordedAndNeverRetried) {
  const std::string args = "add --device 0 --shape 4,256 --seed 9 --strategy random --budget 3 --json --db " + db.string();
  // The second variant on the device (the first after the baseline) crashes.
  const pid_t child = start(args, "VKTUNE_TEST_CRASH_AT_VARIANT=2");
  const auto status = wait_for(child, std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFSIGNALED(*status)) << read(err);
  std::string crashed;
  for (const auto& m : rows(db, "add"))
    if (m.status == vktune::results::Status::attempt) crashed = m.variant_hash;
  ASSERT_FALSE(crashed.empty()) << "no attempt row was left behind";

  for (int run = 0; run < 2; ++run) {  // resumed twice: skipped both times
    const pid_t again = start(args);
    const auto done = wait_for(again, std::chrono::seconds(60));
    ASSERT_TRUE(done && WIFEXITED(*done)) << read(err);
    EXPECT_EQ(WEXITSTATUS(*done), 0) << read(err);
    const auto report = nlohmann::json::parse(read(out));
    const auto& shape = report["shapes"][0];
    bool seen = false;
    for (const auto& o : shape["outcomes"]) {
      if (o["variant_hash"] != crashed) continue;
      seen = true;
      EXPECT_EQ(o["status"], "crashed");
      EXPECT_TRUE(o["resumed"].get<bool>());
    }
    EXPECT_TRUE(seen) << shape.dump();
    ASSERT_TRUE(shape.contains("winner"));
    EXPECT_NE(shape["winner"]["variant_hash"], crashed);
  }
  // The dispatch that crashed, and at most a batch (4) of pipelines the
  // compile thread was creating at that moment: a crash cannot be told from
  // a kill there, so those attempts are recorded as crashed too.
  std::size_t crashed_rows = 0;
  for (const auto& m : rows(db, "add")) crashed_rows += m.status == vktune::results::Status::crashed;
  EXPECT_GE(crashed_rows, 1u);
  EXPECT_LE(crashed_rows, 5u);
}

TEST_F(ProcessTest, AResultTheDiskCannotHoldEndsTheRunWithoutRecordingTheVariantAsCrashed) {
  const std::string args = "add --device 0 --shape 4,256 --seed 9 --strategy random --budget 3 --json --db " + db.string();
  // The second result stored (the first variant after the baseline) fails
  // as SQLite fails on a full disk, after its attempt row was committed.
  const pid_t child = start(args, "VKTUNE_TEST_RECORD_FAILS_AT=2");
  const auto status = wait_for(child, std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status)) << read(err);
  EXPECT_EQ(WEXITSTATUS(*status), 5) << read(err);
  EXPECT_NE(read(err).find("disk is full"), std::string::npos) << read(err);
  const auto left = rows(db, "add");
  EXPECT_EQ(left.size(), 1u) << "the baseline's row, and nothing of the variant the disk refused";
  for (const auto& m : left) EXPECT_NE(m.status, vktune::results::Status::attempt) << m.variant_hash;

  const pid_t again = start(args);
  const auto done = wait_for(again, std::chrono::seconds(60));
  ASSERT_TRUE(done && WIFEXITED(*done)) << read(err);
  EXPECT_EQ(WEXITSTATUS(*done), 0) << read(err);
  const auto report = nlohmann::json::parse(read(out));
  for (const auto& o : report["shapes"][0]["outcomes"]) EXPECT_NE(o["status"], "crashed") << o.dump();
  for (const auto& m : rows(db, "add")) EXPECT_EQ(m.status, vktune::results::Status::ok) << m.variant_hash;
}

TEST_F(ProcessTest, AnAbandonedDeviceDoesNotHangTheExitAndTheReportIsPrinted) {
  // add.comp whose every element spins: on lavapipe a validation takes far
  // longer than the 300 ms the test hook allows, so the device is abandoned
  // with work still running on the driver's threads.
  fs::copy(fs::path(VKTUNE_SOURCE_DIR) / "templates", dir / "templates", fs::copy_options::recursive);
  std::string text = read(dir / "templates" / "add.comp");
  const std::string op = "VTYPE op(VTYPE a, VTYPE b) { return a + b; }";
  ASSERT_NE(text.find(op), std::string::npos);
  text.replace(text.find(op), op.size(),
               "VTYPE op(VTYPE a, VTYPE b) { uint s = 1u; for (uint i = 0u; i < 1000000u; ++i) s = s * 1664525u + "
               "1013904223u; return a + b + VTYPE(float(s >> 31u) * 1e-30); }");
  std::ofstream(dir / "templates" / "add.comp") << text;
  // Some fifteen minutes of spinning on two cores: the exit must not wait
  // for it. Idle the run ends in 6 s; the limit allows for a loaded machine.
  const pid_t child = start("add --device 0 --shape 64,16384 --budget 1 --json --no-transfer --templates " +
                                (dir / "templates").string() + " --db " + db.string(),
                            "VKTUNE_TEST_VALIDATION_TIMEOUT_MS=300");
  const auto status = wait_for(child, std::chrono::seconds(90));
  ASSERT_TRUE(status.has_value()) << "the process hung at exit: " << read(err);
  ASSERT_TRUE(WIFEXITED(*status)) << read(err);
  EXPECT_EQ(WEXITSTATUS(*status), 1) << read(err);  // nothing validated
  const auto report = nlohmann::json::parse(read(out));
  bool timed_out = false;
  for (const auto& o : report["shapes"][0]["outcomes"]) timed_out |= o["status"] == "timeout";
  EXPECT_TRUE(timed_out) << report.dump();
}

TEST_F(ProcessTest, ASecondTunerWaitsForTheDeviceUnlessShared) {
  // Learn the lock file's name from a first run, then hold that lock here.
  const std::string args = "add --device 0 --shape 4,256 --budget 1 --db " + db.string();
  ASSERT_EQ(WEXITSTATUS(*wait_for(start(args), std::chrono::seconds(60))), 0) << read(err);
  fs::path lock_file;
  for (const auto& e : fs::directory_iterator(dir / "runtime")) lock_file = e.path();
  ASSERT_FALSE(lock_file.empty());
  const int fd = open(lock_file.c_str(), O_RDWR);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);

  const auto before = rows(db, "add").size();
  const pid_t waiting = start("add --device 0 --shape 8,256 --budget 1 --db " + db.string());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(waitpid(waiting, nullptr, WNOHANG), 0) << "did not wait: " << read(err);
  EXPECT_EQ(rows(db, "add").size(), before);
  EXPECT_NE(read(err).find("is being tuned by another vktune"), std::string::npos) << read(err);
  flock(fd, LOCK_UN);
  const auto finished = wait_for(waiting, std::chrono::seconds(60));
  ASSERT_TRUE(finished && WIFEXITED(*finished));
  EXPECT_EQ(WEXITSTATUS(*finished), 0) << read(err);
  EXPECT_GT(rows(db, "add").size(), before);

  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  const auto shared = wait_for(start("add --device 0 --shape 12,256 --budget 1 --shared-device --db " + db.string()),
                               std::chrono::seconds(60));
  close(fd);
  ASSERT_TRUE(shared && WIFEXITED(*shared));
  EXPECT_EQ(WEXITSTATUS(*shared), 0) << read(err);
}

// Another user who planted a symbolic link under the lock's name made the
// next tune truncate and write the link's target (a root-owned file was
// replaced by a pid). The lock is now opened without following links and
// never truncated, in a directory that must be ours or root's and, where
// others may write, sticky.
TEST_F(ProcessTest, TheDeviceLockFollowsNoLinkTruncatesNothingAndTrustsNoOpenDirectory) {
  const std::string args = "add --device 0 --shape 4,256 --budget 1 --db " + db.string();
  ASSERT_EQ(WEXITSTATUS(*wait_for(start(args), std::chrono::seconds(60))), 0) << read(err);
  fs::path lock_file;
  for (const auto& e : fs::directory_iterator(dir / "runtime")) lock_file = e.path();
  ASSERT_FALSE(lock_file.empty());
  EXPECT_EQ(lock_file.filename().string().rfind("vktune-device-", 0), 0u) << lock_file;

  // Longer than a pid line: what lies past the holder's line stays.
  const std::string before(200, 'x');
  std::ofstream(lock_file, std::ios::trunc) << before;
  ASSERT_EQ(WEXITSTATUS(*wait_for(start(args), std::chrono::seconds(60))), 0) << read(err);
  const auto after = read(lock_file);
  EXPECT_EQ(after.size(), before.size()) << "truncated";
  EXPECT_EQ(after.substr(21), before.substr(21));

  const auto victim = dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::remove(lock_file);
  fs::create_symlink(victim, lock_file);
  const auto planted = wait_for(start(args), std::chrono::seconds(60));
  ASSERT_TRUE(planted && WIFEXITED(*planted));
  EXPECT_EQ(WEXITSTATUS(*planted), 5) << read(err);
  EXPECT_NE(read(err).find("cannot open the device lock " + lock_file.string()), std::string::npos) << read(err);
  EXPECT_EQ(read(victim), "precious\n");
  fs::remove(lock_file);

  // A directory others may write to without the sticky bit: refused; with it: used.
  fs::permissions(dir / "runtime", fs::perms::all);
  const auto open_dir = wait_for(start(args), std::chrono::seconds(60));
  ASSERT_TRUE(open_dir && WIFEXITED(*open_dir));
  EXPECT_EQ(WEXITSTATUS(*open_dir), 5) << read(err);
  EXPECT_NE(read(err).find("is writable by other users and not sticky"), std::string::npos) << read(err);
  fs::permissions(dir / "runtime", fs::perms::all | fs::perms::sticky_bit);
  ASSERT_EQ(WEXITSTATUS(*wait_for(start(args), std::chrono::seconds(60))), 0) << read(err);
}

TEST_F(ProcessTest, RemeasureReplacesStoredCeilings) {
  ASSERT_EQ(WEXITSTATUS(*wait_for(start("add --device 0 --shape 4,256 --budget 1 --db " + db.string()),
                                  std::chrono::seconds(60))),
            0)
      << read(err);
  std::int64_t row = 0;
  {
    auto store = vktune::results::Store::open(db);
    row = store.devices().at(0).first;
    store.put_ceiling(row, "fp32_fma", 1e9, "GFLOP/s");  // as skewed as a run could leave it
  }
  const auto status = wait_for(start("devices --remeasure --device 0 --db " + db.string()), std::chrono::seconds(60));
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0) << read(err);
  auto store = vktune::results::Store::open_read_only(db);
  const auto fma = store.ceiling(row, "fp32_fma");
  ASSERT_TRUE(fma.has_value());
  EXPECT_GT(*fma, 0);
  EXPECT_LT(*fma, 1e9);
  // Stored as 0 where the device has no cooperative matrices (lavapipe), so
  // later runs do not measure them again.
  EXPECT_EQ(store.ceiling(row, "fp16_tensor_mma"), std::optional<double>(0.0));
  EXPECT_EQ(store.ceiling(row, "fp16_tensor_mma_shared"), std::optional<double>(0.0));
}

}  // namespace
