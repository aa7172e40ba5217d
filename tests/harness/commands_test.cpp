// Submission: run_commands, and a timeout that gives Error(timeout) and an
// unusable device instead of a hung program.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "tests/harness/spin_work.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

using Clock = std::chrono::steady_clock;

class CommandsTest : public VulkanTest {};

TEST_F(CommandsTest, RunCommandsWaitsForTheWork) {
  const auto spirv = compile_glsl("spin.comp", kSpinShader);
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.push_constant_bytes = 4;
  desc.local_size = {kSpinLocalSize, 1, 1};
  vk::ComputePipeline pipeline(device(), spirv, desc);
  vk::Buffer out(device(), kSpinLocalSize * sizeof(std::uint32_t));
  const std::uint32_t iterations = 3000;
  dispatch_once(device(), pipeline, {&out}, {5, 1, 1}, as_bytes_of(iterations));
  const auto values = out.download_values<std::uint32_t>();
  for (std::uint32_t i = 0; i < kSpinLocalSize; ++i) EXPECT_EQ(values[i], lcg(i + 1, iterations)) << i;
}

TEST_F(CommandsTest, CommandBufferCanBeRecordedByHand) {
  vk::Buffer out(device(), 64);
  vk::CommandBuffer cmd(device());
  EXPECT_NE(cmd.handle(), VK_NULL_HANDLE);
  cmd.begin();
  vkCmdFillBuffer(cmd.handle(), out.handle(), 0, VK_WHOLE_SIZE, 0x5a5a5a5au);
  vk::compute_barrier(cmd.handle());
  cmd.end();
  cmd.submit_and_wait();
  EXPECT_EQ(out.download_values<std::uint32_t>(), std::vector<std::uint32_t>(16, 0x5a5a5a5au));
}

TEST(CommandsTimeout, SlowWorkTimesOutAndTheDeviceBecomesUnusable) {
  // Its own instance and device: after a timeout they are unusable and leaked.
  auto instance = std::make_unique<vk::Instance>(vk::InstanceOptions{.validation = true});
  auto device = std::make_unique<vk::Device>(*instance, test_device_index());
  auto work = std::make_unique<SpinWork>(*device);
  const std::uint64_t long_run = work->calibrate(0.5);
  EXPECT_TRUE(instance->take_validation_messages().empty());

  const auto start = Clock::now();
  const Error error = capture_error([&] {
    expecting_abandoned_work([&] { work->run(long_run, kSpinIterations, std::chrono::milliseconds(1)); });
  });
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(error.kind(), ErrorKind::timeout) << error.what();
  EXPECT_NE(std::string(error.what()).find("did not finish"), std::string::npos) << error.what();
  EXPECT_LT(waited, 0.5) << "the wait did not honour the 1 ms timeout";
  EXPECT_FALSE(device->usable());
  EXPECT_NE(device->unusable_reason().find("did not finish"), std::string::npos) << device->unusable_reason();

  // Nothing more may be submitted to the device.
  const Error after = capture_error([&] { work->run(1, 1, std::chrono::seconds(1)); });
  EXPECT_EQ(after.kind(), ErrorKind::device_lost) << after.what();
  EXPECT_NE(std::string(after.what()).find("unusable"), std::string::npos) << after.what();

  const auto messages = instance->take_validation_messages();
  EXPECT_TRUE(messages.empty()) << join_lines(messages);
  abandon({std::move(instance), std::move(device), std::move(work)});
}

}  // namespace
}  // namespace vktune::test
