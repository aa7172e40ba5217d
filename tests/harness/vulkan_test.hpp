#pragma once
// Support for harness tests that need a Vulkan device: a fixture that opens
// the test device on an instance with validation (when the layer is
// installed) and fails the test on any validation message, plus small helpers
// for compiling GLSL and running one dispatch.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "harness/buffer.hpp"
#include "harness/commands.hpp"
#include "harness/compiler.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "harness/pipeline.hpp"
#include "tests/test_device.hpp"

namespace vktune::test {

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// Runs `body` and returns the vktune::Error it throws; fails the test when it
// throws nothing or something else.
template <class Body>
Error capture_error(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected vktune::Error, got std::exception: " << e.what();
    return Error(ErrorKind::internal, "<wrong exception>");
  }
  ADD_FAILURE() << "expected vktune::Error, nothing was thrown";
  return Error(ErrorKind::internal, "<nothing thrown>");
}

// Compiles GLSL that needs no includes.
inline std::vector<std::uint32_t> compile_glsl(const std::string& name, const std::string& text,
                                               std::vector<std::pair<std::string, std::string>> defines = {}) {
  vk::CompileOptions options;
  options.defines = std::move(defines);
  return vk::compile_compute_shader({name, text}, vk::MapIncludes({}), options);
}

// Records one dispatch of `pipeline` over `buffers` and waits for it.
inline void dispatch_once(vk::Device& device, vk::ComputePipeline& pipeline, std::vector<const vk::Buffer*> buffers,
                          std::array<std::uint32_t, 3> groups, std::span<const std::uint8_t> push = {}) {
  VkDescriptorSet set = pipeline.make_descriptor_set(buffers);
  vk::run_commands(device, [&](VkCommandBuffer cmd) { pipeline.record_dispatch(cmd, set, groups, push); });
}

template <class T>
std::span<const std::uint8_t> as_bytes_of(const T& value) {
  return {reinterpret_cast<const std::uint8_t*>(&value), sizeof value};
}

// Opens the test device on a fresh instance for each test and, at the end,
// fails the test if the validation layer reported anything.
class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    instance_ = std::make_unique<vk::Instance>(vk::InstanceOptions{.validation = true});
    device_ = std::make_unique<vk::Device>(*instance_, test_device_index());
  }

  void TearDown() override {
    // Destroying the device first lets the layer report leaked objects too.
    device_.reset();
    if (instance_) {
      const auto messages = instance_->take_validation_messages();
      EXPECT_TRUE(messages.empty()) << "validation layer reported:\n" << join_lines(messages);
      instance_.reset();
    }
  }

  vk::Instance& instance() { return *instance_; }
  vk::Device& device() { return *device_; }
  const vk::DeviceInfo& info() { return device_->info(); }

  std::unique_ptr<vk::Instance> instance_;
  std::unique_ptr<vk::Device> device_;
};

}  // namespace vktune::test
