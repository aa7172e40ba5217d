// A file written through AtomicFile appears whole on commit and not at all
// otherwise; an existing target survives every failure untouched.
#include "common/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <fstream>
#include <random>

#include "common/error.hpp"
#include "common/stop_request.hpp"
#include "tests/support/files.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-atomic-" + std::to_string(std::random_device{}()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  static std::string read(const fs::path& p) { return testing::read_file(p); }
  std::size_t entries() const { return testing::count_entries(dir); }
};

TEST_F(AtomicFileTest, CommitReplacesTheTargetWhole) {
  const auto target = dir / "out.bin";
  std::ofstream(target) << "old";
  {
    AtomicFile out(target);
    out.write("new ", 4);
    const std::string big(3 << 20, 'x');  // more than one internal chunk
    out.write(big.data(), big.size());
    EXPECT_EQ(read(target), "old");  // nothing visible before the commit
    out.commit();
  }
  const std::string text = read(target);
  EXPECT_EQ(text.size(), 4u + (3u << 20));
  EXPECT_EQ(text.substr(0, 5), "new x");
  EXPECT_EQ(entries(), 1u);  // no temporary file left
}

TEST_F(AtomicFileTest, WithoutCommitNothingIsLeftAndTheOldFileStays) {
  const auto target = dir / "out.bin";
  std::ofstream(target) << "old";
  {
    AtomicFile out(target);
    out.write("partial", 7);
    EXPECT_TRUE(fs::exists(out.temporary_path()));
    EXPECT_EQ(out.temporary_path().parent_path(), dir);  // same file system: the rename is atomic
  }
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AFailedRenameRemovesTheTemporaryFile) {
  const auto target = dir / "a_directory";
  fs::create_directories(target / "inside");  // rename of a file onto a non-empty directory fails
  AtomicFile out(target);
  out.write("x", 1);
  try {
    out.commit();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), 1u);
  EXPECT_TRUE(fs::is_directory(target / "inside"));
}

TEST_F(AtomicFileTest, AWriteThatFailsMidwayLikeAFullDiskLeavesNothing) {
  // A file size limit makes write() fail part-way (EFBIG), as a full disk
  // does (ENOSPC); in a child process so the limit stays there.
  const auto target = dir / "out.bin";
  std::ofstream(target) << "old";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1 << 20, 1 << 20};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 1;
    try {
      AtomicFile out(target);
      const std::string big(3 << 20, 'x');
      out.write(big.data(), big.size());
      out.commit();
    } catch (const Error& e) {
      code = std::string(e.what()).find(target.string()) != std::string::npos ? 0 : 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the write did not fail, 2: the error did not name the file";
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AStopTheUserAskedForEndsTheWriteAndLeavesNothing) {
  // The first Ctrl-C during a long write (a dequantized tensor, a random
  // model): the next chunk is not written, the temporary file goes.
  const auto target = dir / "out.bin";
  std::ofstream(target) << "old";
  {
    AtomicFile out(target);
    const std::string chunk(3 << 20, 'x');
    out.write(chunk.data(), chunk.size());
    ASSERT_EQ(entries(), 2u);  // the target and the temporary file
    request_stop(SIGINT);
    try {
      out.write(chunk.data(), chunk.size());
      clear_stop_request();
      FAIL() << "the write went on after the stop";
    } catch (const Error& e) {
      clear_stop_request();
      EXPECT_NE(std::string(e.what()).find("interrupted"), std::string::npos) << e.what();
    }
    EXPECT_EQ(entries(), 1u);
  }
  EXPECT_EQ(read(target), "old");
}

TEST_F(AtomicFileTest, TheSignalHandlersRemovalTakesEveryOpenTemporaryFileAndNothingElse) {
  // What a second Ctrl-C runs before _exit (cli/interrupt.cpp).
  const auto kept = dir / "kept.bin";
  {
    AtomicFile done(kept);
    done.write("done", 4);
    done.commit();
  }
  AtomicFile first(dir / "a.bin"), second(dir / "b.bin");
  first.write("a", 1);
  second.write("b", 1);
  ASSERT_EQ(entries(), 3u);
  remove_temporaries_now();
  EXPECT_EQ(entries(), 1u);
  EXPECT_EQ(read(kept), "done");
}

TEST_F(AtomicFileTest, AnUnwritableDirectoryIsAnErrorNamingTheTarget) {
  try {
    AtomicFile out(dir / "missing" / "out.bin");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("out.bin"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune
