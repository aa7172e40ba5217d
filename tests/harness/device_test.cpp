// Device enumeration, DeviceInfo plausibility, and opening devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iostream>

#include "harness/driver_version.hpp"
#include "harness/vk_check.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

bool is_power_of_two(std::uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

bool is_hex_uuid(const std::string& text) {
  return text.size() == 32 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

class DeviceTest : public VulkanTest {};

TEST_F(DeviceTest, EnumerationFindsTheTestDevice) {
  const auto devices = vk::list_devices(instance());
  ASSERT_FALSE(devices.empty());
  ASSERT_LT(test_device_index(), devices.size());
  for (std::uint32_t i = 0; i < devices.size(); ++i) EXPECT_EQ(devices[i].index, i);
  // CI runs on lavapipe; when no other device is chosen it must be listed.
  if (!std::getenv("VKTUNE_TEST_DEVICE")) {
    const bool lavapipe = std::any_of(devices.begin(), devices.end(), [](const vk::DeviceInfo& d) {
      return d.name.find("llvmpipe") != std::string::npos;
    });
    if (!lavapipe) std::cout << "note: lavapipe (llvmpipe) is not among the listed devices\n";
  }
}

TEST_F(DeviceTest, InfoIsPlausible) {
  const auto& d = info();
  SCOPED_TRACE(d.name);
  EXPECT_FALSE(d.name.empty());
  EXPECT_FALSE(d.device_type.empty());
  EXPECT_FALSE(d.vendor.empty());
  EXPECT_FALSE(d.driver_name.empty());
  EXPECT_GE(d.api_version_raw, VK_API_VERSION_1_2);
  EXPECT_EQ(d.api_version.substr(0, 2), "1.");
  EXPECT_EQ(d.driver_version, vk::decode_driver_version(d.vendor_id, d.driver_version_raw,
                                                        d.driver_id == VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS));

  EXPECT_TRUE(is_power_of_two(d.subgroup_size)) << d.subgroup_size;
  EXPECT_TRUE(is_power_of_two(d.min_subgroup_size)) << d.min_subgroup_size;
  EXPECT_TRUE(is_power_of_two(d.max_subgroup_size)) << d.max_subgroup_size;
  EXPECT_LE(d.min_subgroup_size, d.subgroup_size);
  EXPECT_LE(d.subgroup_size, d.max_subgroup_size);
  if (d.subgroup_in_compute) {
    EXPECT_TRUE(d.has_subgroup_operation("basic"));
  }
  EXPECT_FALSE(d.has_subgroup_operation("no-such-operation"));

  EXPECT_GE(d.max_workgroup_invocations, 128u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(d.max_workgroup_size[i], 1u);
    EXPECT_GE(d.max_workgroup_count[i], 1u);
  }
  EXPECT_GE(d.max_workgroup_size[0], 128u);
  EXPECT_GE(d.max_shared_memory_bytes, 16u * 1024u);
  EXPECT_GE(d.max_push_constants_bytes, 128u);
  EXPECT_GT(d.max_storage_buffer_range, 0u);
  EXPECT_GT(d.max_memory_allocation_bytes, 0u);

  EXPECT_GT(d.timestamp_valid_bits, 0u);
  EXPECT_LE(d.timestamp_valid_bits, 64u);
  EXPECT_GT(d.timestamp_period_ns, 0.0);

  EXPECT_TRUE(is_hex_uuid(d.device_uuid)) << d.device_uuid;
  EXPECT_TRUE(is_hex_uuid(d.driver_uuid)) << d.driver_uuid;

  ASSERT_FALSE(d.memory_heaps.empty());
  for (const auto& heap : d.memory_heaps) EXPECT_GT(heap.size_bytes, 0u);
  EXPECT_GT(d.device_local_bytes(), 0u);

  if (d.compute_required_subgroup_size) {
    EXPECT_TRUE(d.features.subgroup_size_control);
    EXPECT_TRUE(d.supports_required_subgroup_size(d.min_subgroup_size));
    EXPECT_TRUE(d.supports_required_subgroup_size(d.max_subgroup_size));
  }
}

TEST_F(DeviceTest, LavapipeFacts) {
  const auto& d = info();
  if (d.name.find("llvmpipe") == std::string::npos) GTEST_SKIP() << "not lavapipe: " << d.name;
  EXPECT_EQ(d.device_type, "cpu");
  EXPECT_TRUE(d.is_cpu());
  EXPECT_EQ(d.vendor_id, vk::kVendorMesa);
  EXPECT_EQ(d.vendor, "Mesa");
  EXPECT_EQ(d.driver_id, static_cast<std::uint32_t>(VK_DRIVER_ID_MESA_LLVMPIPE));
  EXPECT_EQ(d.max_shared_memory_bytes, 32u * 1024u);
  EXPECT_TRUE(d.features.subgroup_size_control);
  EXPECT_TRUE(d.compute_required_subgroup_size);
}

TEST_F(DeviceTest, OpenedDeviceMatchesItsListing) {
  const auto devices = vk::list_devices(instance());
  const auto& listed = devices.at(test_device_index());
  EXPECT_EQ(info().index, test_device_index());
  EXPECT_EQ(info().name, listed.name);
  EXPECT_EQ(info().device_uuid, listed.device_uuid);
  EXPECT_NE(device().handle(), VK_NULL_HANDLE);
  EXPECT_NE(device().queue(), VK_NULL_HANDLE);
  EXPECT_NE(device().command_pool(), VK_NULL_HANDLE);
  EXPECT_NE(device().physical(), VK_NULL_HANDLE);
  EXPECT_EQ(&device().instance(), &instance());
  EXPECT_TRUE(device().usable());
  EXPECT_TRUE(device().unusable_reason().empty());
  EXPECT_GE(instance().api_version(), VK_API_VERSION_1_2);
}

TEST_F(DeviceTest, BadIndexNamesTheValidRange) {
  const auto count = instance().physical_devices().size();
  const auto bad = static_cast<std::uint32_t>(count + 3);
  const Error error = capture_error([&] { vk::Device unused(instance(), bad); });
  EXPECT_EQ(error.kind(), ErrorKind::no_device);
  const std::string message = error.what();
  EXPECT_NE(message.find(std::to_string(bad)), std::string::npos) << message;
  EXPECT_NE(message.find("0.." + std::to_string(count - 1)), std::string::npos) << message;
}

TEST_F(DeviceTest, MemoryTypeLookup) {
  const auto all_types = (1u << device().memory_properties().memoryTypeCount) - 1;
  const auto host = device().memory_type(all_types, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  EXPECT_TRUE(device().memory_properties().memoryTypes[host].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  const Error error = capture_error([&] { device().memory_type(0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT); });
  EXPECT_EQ(error.kind(), ErrorKind::vulkan);
}

TEST_F(DeviceTest, TwoDevicesCoexistInOneInstance) {
  vk::Device second(instance(), test_device_index());
  vk::Buffer a(device(), 64, vk::MemoryKind::host_visible);
  vk::Buffer b(second, 64, vk::MemoryKind::host_visible);
  a.fill(0x11111111u);
  b.fill(0x22222222u);
  EXPECT_EQ(a.download_values<std::uint32_t>().front(), 0x11111111u);
  EXPECT_EQ(b.download_values<std::uint32_t>().front(), 0x22222222u);
}

TEST_F(DeviceTest, CheckTurnsResultsIntoErrorKinds) {
  EXPECT_NO_THROW(vk::check(VK_SUCCESS, "vkNothing"));
  const Error lost = capture_error([] { vk::check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit"); });
  EXPECT_EQ(lost.kind(), ErrorKind::device_lost);
  const Error timeout = capture_error([] { vk::check(VK_TIMEOUT, "vkWaitForFences"); });
  EXPECT_EQ(timeout.kind(), ErrorKind::timeout);
  const Error other = capture_error([] { vk::check(VK_ERROR_OUT_OF_HOST_MEMORY, "vkCreateBuffer"); });
  EXPECT_EQ(other.kind(), ErrorKind::vulkan);
  EXPECT_NE(std::string(other.what()).find("vkCreateBuffer"), std::string::npos) << other.what();
  EXPECT_NE(std::string(other.what()).find("VK_ERROR_OUT_OF_HOST_MEMORY"), std::string::npos) << other.what();
  EXPECT_EQ(vk::result_name(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST");
  // A code the table lacks is still named by its number.
  EXPECT_EQ(vk::describe(VK_ERROR_UNKNOWN), "VK_ERROR_UNKNOWN (-13)");
  EXPECT_EQ(vk::describe(static_cast<VkResult>(-1000999)), "VkResult(unknown) (-1000999)");
}

}  // namespace
}  // namespace vktune::test
