// The instance: API version, validation on request, and validation messages
// reaching take_validation_messages() (the error path tests rely on).
#include <gtest/gtest.h>

#include "harness/instance.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

TEST(Instance, WithoutValidation) {
  vk::Instance instance;
  EXPECT_NE(instance.handle(), VK_NULL_HANDLE);
  EXPECT_FALSE(instance.has_validation());
  EXPECT_GE(instance.api_version(), VK_API_VERSION_1_2);
  EXPECT_FALSE(instance.physical_devices().empty());
  EXPECT_TRUE(instance.take_validation_messages().empty());
}

TEST(Instance, ValidationWhenInstalled) {
  vk::Instance instance({.validation = true});
  if (!instance.has_validation()) {
    GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)";
  }
  EXPECT_FALSE(instance.physical_devices().empty());
  const auto messages = instance.take_validation_messages();
  EXPECT_TRUE(messages.empty()) << join_lines(messages);
}

// A deliberate but harmless misuse (a buffer with no usage flags) must come
// back as a message, so that the fixture's empty check means something.
TEST(Instance, ValidationMessagesAreCollected) {
  vk::Instance instance({.validation = true});
  if (!instance.has_validation()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  {
    vk::Device device(instance, test_device_index());
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 16;
    info.usage = 0;  // VUID-VkBufferCreateInfo-usage-requiredbitmask
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    if (vkCreateBuffer(device.handle(), &info, nullptr, &buffer) == VK_SUCCESS) {
      vkDestroyBuffer(device.handle(), buffer, nullptr);
    }
  }
  const auto messages = instance.take_validation_messages();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(join_lines(messages).find("VkBufferCreateInfo-usage"), std::string::npos) << join_lines(messages);
  EXPECT_EQ(messages.front().rfind("validation ", 0), 0u) << messages.front();
  EXPECT_TRUE(instance.take_validation_messages().empty()) << "messages are taken, not copied";
}

}  // namespace
}  // namespace vktune::test
