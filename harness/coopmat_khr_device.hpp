#pragma once
// VK_KHR_cooperative_matrix on a physical device: whether it offers the
// extension and the feature, and the matrix shapes it lists. Debian 12's
// Vulkan headers (1.3.239) predate the extension (1.3.255), so its structure
// types, structures and entry point are declared here from the Vulkan
// registry; its component types and scopes share the NV extension's values.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "harness/device_info.hpp"

namespace vktune::vk::coopmat_khr {

inline constexpr const char* kDeviceExtension = "VK_KHR_cooperative_matrix";
inline constexpr auto kFeaturesType = static_cast<VkStructureType>(1000506000);
inline constexpr auto kPropertiesType = static_cast<VkStructureType>(1000506001);

struct DeviceFeatures {  // VkPhysicalDeviceCooperativeMatrixFeaturesKHR
  VkStructureType sType = kFeaturesType;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

struct Properties {  // VkCooperativeMatrixPropertiesKHR
  VkStructureType sType = kPropertiesType;
  void* pNext = nullptr;
  std::uint32_t MSize = 0, NSize = 0, KSize = 0;
  std::uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR: the NV values
  VkBool32 saturatingAccumulation = VK_FALSE;
  std::uint32_t scope = 0;  // VkScopeKHR: the NV values
};

// The shapes the device lists through vkGetPhysicalDeviceCooperativeMatrix-
// PropertiesKHR (looked up on the loaded instance); empty where it has none.
std::vector<CooperativeMatrixShape> khr_shapes(VkPhysicalDevice device);

}  // namespace vktune::vk::coopmat_khr
