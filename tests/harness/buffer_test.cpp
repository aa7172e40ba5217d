// Buffers: upload/download round trips, offsets, fill, and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(byte(rng));
  return bytes;
}

struct RoundTripCase {
  vk::MemoryKind kind;
  std::size_t size;
};

class BufferRoundTrip : public VulkanTest, public ::testing::WithParamInterface<RoundTripCase> {};

TEST_P(BufferRoundTrip, RandomBytesComeBackUnchanged) {
  const auto [kind, size] = GetParam();
  vk::Buffer buffer(device(), size, kind);
  EXPECT_EQ(buffer.size(), size);
  EXPECT_NE(buffer.handle(), VK_NULL_HANDLE);
  if (kind == vk::MemoryKind::host_visible) {
    EXPECT_NE(buffer.mapped(), nullptr);
  }
  const auto bytes = random_bytes(size, static_cast<std::uint32_t>(size));
  buffer.upload(bytes);
  EXPECT_EQ(buffer.download(), bytes);
}

INSTANTIATE_TEST_SUITE_P(Sizes, BufferRoundTrip,
                         ::testing::Values(RoundTripCase{vk::MemoryKind::device_local, 1},
                                           RoundTripCase{vk::MemoryKind::device_local, 4099},
                                           RoundTripCase{vk::MemoryKind::device_local, 1'000'003},
                                           RoundTripCase{vk::MemoryKind::host_visible, 3},
                                           RoundTripCase{vk::MemoryKind::host_visible, 65'537}),
                         [](const ::testing::TestParamInfo<RoundTripCase>& param) {
                           return std::string(param.param.kind == vk::MemoryKind::device_local ? "DeviceLocal"
                                                                                              : "HostVisible") +
                                  std::to_string(param.param.size);
                         });

class BufferTest : public VulkanTest {};

TEST_F(BufferTest, TypedValuesRoundTrip) {
  std::vector<float> values(1001);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 7.0f;
  vk::Buffer buffer(device(), values.size() * sizeof(float));
  buffer.upload_values(std::span<const float>(values));
  EXPECT_EQ(buffer.download_values<float>(), values);
}

TEST_F(BufferTest, UploadAtOffsetLeavesTheRestAlone) {
  vk::Buffer buffer(device(), 64);
  buffer.fill(0);
  const std::vector<std::uint8_t> part{1, 2, 3, 4, 5};
  buffer.upload(part, 7);
  const auto bytes = buffer.download();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::uint8_t expected = (i >= 7 && i < 12) ? part[i - 7] : 0;
    EXPECT_EQ(bytes[i], expected) << "byte " << i;
  }
}

TEST_F(BufferTest, FillRepeatsThePattern) {
  for (auto kind : {vk::MemoryKind::device_local, vk::MemoryKind::host_visible}) {
    vk::Buffer buffer(device(), 4096, kind);
    buffer.upload(random_bytes(4096, 7));
    buffer.fill(0xdeadbeefu);
    const auto words = buffer.download_values<std::uint32_t>();
    ASSERT_EQ(words.size(), 1024u);
    EXPECT_EQ(std::count(words.begin(), words.end(), 0xdeadbeefu), 1024);
  }
}

TEST_F(BufferTest, FillPoisonsFloatsWithNaN) {
  vk::Buffer buffer(device(), 100 * sizeof(float));
  buffer.fill(0x7fc00000u);
  for (float v : buffer.download_values<float>()) EXPECT_TRUE(std::isnan(v));
}

// vkCmdFillBuffer with VK_WHOLE_SIZE writes whole words only: the tail of a
// buffer whose size is not a multiple of 4 keeps its bytes.
TEST_F(BufferTest, FillOfAnUnalignedSizeWritesWholeWords) {
  vk::Buffer buffer(device(), 10);
  buffer.upload(std::vector<std::uint8_t>(10, 0xaa));
  buffer.fill(0x04030201u);
  const std::vector<std::uint8_t> expected{1, 2, 3, 4, 1, 2, 3, 4, 0xaa, 0xaa};
  EXPECT_EQ(buffer.download(), expected);
}

TEST_F(BufferTest, MoveKeepsTheContents) {
  vk::Buffer first(device(), 16, vk::MemoryKind::host_visible);
  first.fill(0x01020304u);
  const VkBuffer handle = first.handle();
  vk::Buffer second(std::move(first));
  EXPECT_EQ(second.handle(), handle);
  EXPECT_EQ(second.size(), 16u);
  EXPECT_EQ(second.download_values<std::uint32_t>(), std::vector<std::uint32_t>(4, 0x01020304u));
}

TEST_F(BufferTest, OverrunningUploadIsRefused) {
  vk::Buffer buffer(device(), 16);
  const Error error = capture_error([&] { buffer.upload(std::vector<std::uint8_t>(10), 8); });
  EXPECT_EQ(error.kind(), ErrorKind::internal);
  EXPECT_NE(std::string(error.what()).find("overruns"), std::string::npos) << error.what();
  EXPECT_NO_THROW(buffer.upload(std::vector<std::uint8_t>(8), 8));
  EXPECT_NO_THROW(buffer.upload({}, 16));
}

TEST_F(BufferTest, ZeroSizeIsRefused) {
  const Error error = capture_error([&] { vk::Buffer buffer(device(), 0); });
  EXPECT_EQ(error.kind(), ErrorKind::internal);
}

TEST_F(BufferTest, OversizeIsADeviceLimit) {
  const auto limit = info().max_memory_allocation_bytes;
  if (limit == 0) GTEST_SKIP() << "device reports no maxMemoryAllocationSize";
  const Error error = capture_error([&] { vk::Buffer buffer(device(), limit + 1); });
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("maxMemoryAllocationSize"), std::string::npos) << error.what();
}

}  // namespace
}  // namespace vktune::test
