// The built `vktune` binary run as a subprocess: the no-loader error path
// (which an in-process test cannot reach once the loader has loaded),
// `devices --json`, help, and usage errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "harness/loader.hpp"
#include "tests/test_device.hpp"

#ifndef VKTUNE_BINARY
#error "VKTUNE_BINARY must name the built vktune executable"
#endif

namespace vktune::test {
namespace {

namespace fs = std::filesystem;

struct ProcessResult {
  int exit_code = -1;
  std::string out, err;
};

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs vktune with `args` (already shell words) and `env` assignments.
ProcessResult run_vktune(const std::string& args, const std::string& env = "") {
  std::random_device entropy;
  const fs::path dir = fs::temp_directory_path() / ("vktune-cli-test-" + std::to_string(entropy()));
  fs::create_directories(dir);
  const fs::path out = dir / "stdout", err = dir / "stderr";
#if defined(__SANITIZE_ADDRESS__)
  // A sanitized vktune would turn lavapipe's unload-time leak into exit 23;
  // these tests are about exit codes and output (test_harness checks leaks).
  const std::string sanitizer = "ASAN_OPTIONS=detect_leaks=0 ";
#else
  const std::string sanitizer;
#endif
  const std::string command = "env " + sanitizer + env + " " + shell_quote(VKTUNE_BINARY) + " " + args + " >" +
                              shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
  const int status = std::system(command.c_str());
  ProcessResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(out);
  run.err = read_file(err);
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return run;
}

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines;
}

TEST(Cli, MissingLoaderIsOneLineAndExitCode3) {
  const ProcessResult run = run_vktune("devices", std::string(vk::kLoaderEnvVar) + "=/nonexistent/libvulkan.so.1");
  EXPECT_EQ(run.exit_code, exit_code::no_loader);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("no Vulkan loader"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("/nonexistent/libvulkan.so.1"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(Cli, LibraryThatIsNotALoaderIsOneLineAndExitCode3) {
  const ProcessResult run = run_vktune("devices", std::string(vk::kLoaderEnvVar) + "=libm.so.6");
  EXPECT_EQ(run.exit_code, exit_code::no_loader);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("not a Vulkan loader"), std::string::npos) << run.err;
}

TEST(Cli, DevicesListsEveryDevice) {
  vk::Instance instance;
  const auto devices = vk::list_devices(instance);
  const ProcessResult run = run_vktune("devices");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  for (const auto& d : devices) {
    EXPECT_NE(run.out.find("[" + std::to_string(d.index) + "] " + d.name), std::string::npos) << run.out;
  }
}

TEST(Cli, DevicesJsonIsVersionedWithOneEntryPerDevice) {
  vk::Instance instance;
  const auto devices = vk::list_devices(instance);
  const ProcessResult run = run_vktune("devices --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json document;
  ASSERT_NO_THROW(document = nlohmann::json::parse(run.out)) << run.out;
  ASSERT_TRUE(document.is_object()) << run.out;
  EXPECT_EQ(document.value("format", ""), "vktune-devices");
  EXPECT_EQ(document.value("version", 0), 1);
  const auto& parsed = document.at("devices");
  ASSERT_TRUE(parsed.is_array());
  ASSERT_EQ(parsed.size(), devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& entry = parsed[i];
    EXPECT_EQ(entry.at("index").get<std::uint32_t>(), devices[i].index);
    EXPECT_EQ(entry.at("name").get<std::string>(), devices[i].name);
    EXPECT_EQ(entry.at("device_uuid").get<std::string>(), devices[i].device_uuid);
    EXPECT_EQ(entry.at("driver_version").get<std::string>(), devices[i].driver_version);
    EXPECT_EQ(entry.at("subgroup").at("max_size").get<std::uint32_t>(), devices[i].max_subgroup_size);
    EXPECT_EQ(entry.at("timestamps").at("valid_bits").get<std::uint32_t>(), devices[i].timestamp_valid_bits);
  }
}

// --coopmat forces a cooperative-matrix extension: on a device without it
// (lavapipe offers neither) a command that opens the device is a usage
// error naming what the device offers, before anything runs; `devices`
// says which extension each device's tensor-core paths take; a bad
// VKTUNE_COOPMAT is one line, exit 2.
TEST(Cli, CoopmatForcedOnADeviceWithoutItNamesWhatItOffers) {
  vk::Instance instance;
  const auto devices = vk::list_devices(instance);
  ASSERT_FALSE(devices.empty());
  const auto& d = devices[test_device_index()];
  const auto json = run_vktune("devices --json --coopmat khr");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto entry = nlohmann::json::parse(json.out).at("devices").at(test_device_index());
  const bool has_khr = d.features.cooperative_matrix_khr, has_nv = d.features.cooperative_matrix_nv;
  EXPECT_EQ(entry.at("tensor_core_extension").get<std::string>(), has_khr ? "khr" : "none");
  if (!has_khr) {
    const auto refused = run_vktune("check add --device " + std::to_string(test_device_index()) + " --coopmat khr");
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_EQ(refused.out, "");
    EXPECT_NE(refused.err.find("--coopmat khr: device " + std::to_string(test_device_index()) + " (" + d.name +
                               ") offers no VK_KHR_cooperative_matrix; it offers " +
                               (has_nv ? "VK_NV_cooperative_matrix" : "neither cooperative-matrix extension")),
              std::string::npos)
        << refused.err;
  }
  const auto bad = run_vktune("devices", "VKTUNE_COOPMAT=amd");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("VKTUNE_COOPMAT is 'amd': auto"), std::string::npos) << bad.err;
}

TEST(Cli, HelpExitsZero) {
  const ProcessResult root = run_vktune("--help");
  EXPECT_EQ(root.exit_code, 0) << root.err;
  EXPECT_NE(root.out.find("devices"), std::string::npos) << root.out;
  const ProcessResult devices = run_vktune("devices --help");
  EXPECT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find("--json"), std::string::npos) << devices.out;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  const ProcessResult option = run_vktune("devices --no-such-option");
  EXPECT_EQ(option.exit_code, exit_code::usage);
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_FALSE(option.err.empty());
  const ProcessResult command = run_vktune("no-such-command");
  EXPECT_EQ(command.exit_code, exit_code::usage);
}

// In this process the loader loads; ensure_loader() is then a no-op that may
// be called any number of times. (Its failure path is the subprocess test
// above and test_harness_noloader: a process cannot unload it again.)
TEST(Loader, EnsureLoaderSucceedsRepeatedly) {
  EXPECT_NO_THROW(vk::ensure_loader());
  EXPECT_NO_THROW(vk::ensure_loader());
  EXPECT_NE(vkCreateInstance, nullptr);
}

}  // namespace
}  // namespace vktune::test
