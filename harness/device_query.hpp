#pragma once
// Filling in a DeviceInfo from a Vulkan physical device.
#include <volk.h>

#include <cstdint>

#include "harness/device_info.hpp"

namespace vktune::vk {

// Queries everything DeviceInfo holds. `index` is the device's position in
// the loader's list.
DeviceInfo query_device_info(VkPhysicalDevice device, std::uint32_t index);

bool device_extension_supported(VkPhysicalDevice device, const char* name);

}  // namespace vktune::vk
