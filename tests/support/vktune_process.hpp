#pragma once
// The built vktune as a subprocess, for tests of its command line: each test
// gets a fresh temporary directory, and each run its exit code, stdout and
// stderr apart. The test target defines VKTUNE_BINARY.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "tests/support/files.hpp"

#ifndef VKTUNE_BINARY
#error "VKTUNE_BINARY must name the built vktune"
#endif

namespace vktune::testing {

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

class VktuneProcessTest : public ::testing::Test {
 protected:
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vktune-test-" + std::to_string(std::random_device{}()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  static std::string read(const std::filesystem::path& path) { return read_file(path); }

  // `ENV vktune ARGS` (ENV e.g. "VK_DRIVER_FILES=x"), through the shell,
  // with the test's own device-lock directory (ENV may name another): ctest
  // runs tests side by side, and a tune in one test would otherwise wait for
  // another test's tune of the same lavapipe device.
  RunResult run(const std::string& args, const std::string& env = "") const {
    const auto out = dir / "out.txt", err = dir / "err.txt";
    const std::string command = "VKTUNE_LOCK_DIR=\"" + (dir / "lock").string() + "\" " + env + " \"" +
                                VKTUNE_BINARY + "\" " + args + " >\"" + out.string() + "\" 2>\"" + err.string() + "\"";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(out), read(err)};
  }
};

}  // namespace vktune::testing
