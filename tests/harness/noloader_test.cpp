// The no-loader path in-process. ensure_loader() remembers its first outcome
// for the life of the process, so this file is its own executable: every test
// points the loader override at a missing library before anything loads one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "harness/loader.hpp"

namespace vktune::test {
namespace {

constexpr const char* kMissing = "/nonexistent/libvulkan.so.1";

class NoLoader : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(vk::kLoaderEnvVar, kMissing, 1); }
};

void expect_no_loader(const Error& e) {
  EXPECT_EQ(e.kind(), ErrorKind::no_loader);
  EXPECT_EQ(exit_code_for(e.kind()), exit_code::no_loader);
  const std::string message = e.what();
  EXPECT_NE(message.find("no Vulkan loader"), std::string::npos) << message;
  EXPECT_NE(message.find(kMissing), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

TEST_F(NoLoader, EnsureLoaderThrowsEveryTime) {
  for (int i = 0; i < 2; ++i) {
    try {
      vk::ensure_loader();
      FAIL() << "ensure_loader() did not throw";
    } catch (const Error& e) {
      expect_no_loader(e);
    }
  }
}

TEST_F(NoLoader, InstanceThrowsNoLoader) {
  try {
    vk::Instance instance;
    FAIL() << "an instance was created without a loader";
  } catch (const Error& e) {
    expect_no_loader(e);
  }
}

}  // namespace
}  // namespace vktune::test
