// A write lock held by another connection for longer than the notice time is
// waited for (with a line on stderr), not turned into a failed run.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "results/sqlite.hpp"

namespace vktune::results {
namespace {

namespace fs = std::filesystem;

TEST(LockWait, AWriterWaitsPastTheNoticeTimeForALockHeldElsewhere) {
  const fs::path dir = fs::temp_directory_path() / ("vktune-lockwait-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const auto db = dir / "locked.db";
  using Mode = sqlite::Connection::Mode;
  auto holder = sqlite::Connection::open(db, Mode::read_write_create);
  holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)");
  // Notice after 200 ms: before, that was the busy timeout and the write failed.
  auto writer = sqlite::Connection::open(db, Mode::read_write_create, 200);
  holder.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");

  ::testing::internal::CaptureStderr();
  std::string failure;
  std::thread write([&] {
    try {
      writer.exec("INSERT INTO t VALUES (2)");
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // six notice times
  holder.exec("COMMIT");
  write.join();
  const auto messages = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(failure, "");
  EXPECT_NE(messages.find("is locked by another process"), std::string::npos) << messages;
  EXPECT_NE(messages.find("still waiting"), std::string::npos) << messages;

  sqlite::Statement count(writer, "SELECT COUNT(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.column_int64(0), 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vktune::results
