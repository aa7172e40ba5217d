#pragma once
// Optional glue between the runtime's answers and Vulkan's structs, header
// only (it needs the Vulkan headers, not the loader). Include it after
// <volk.h> or <vulkan/vulkan.h> as the application does.
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "vktune_runtime.hpp"

namespace vktune::runtime {

inline DeviceIdentity identity_of(const VkPhysicalDeviceProperties& properties) {
  DeviceIdentity id;
  id.vendor_id = properties.vendorID;
  id.device_id = properties.deviceID;
  id.driver_version = properties.driverVersion;
  id.name = properties.deviceName;  // NUL-terminated within VK_MAX_PHYSICAL_DEVICE_NAME_SIZE
  return id;
}

// A VkSpecializationInfo over a variant's constants; get() is nullptr when
// there are none. Keep the object alive until the pipeline is created.
class SpecializationInfo {
 public:
  explicit SpecializationInfo(const Stage& variant) {
    for (const auto& c : variant.specialization) {
      entries_.push_back({c.id, static_cast<std::uint32_t>(sizeof(std::uint32_t) * values_.size()),
                          sizeof(std::uint32_t)});
      values_.push_back(c.value);
    }
    info_.mapEntryCount = static_cast<std::uint32_t>(entries_.size());
    info_.pMapEntries = entries_.data();
    info_.dataSize = values_.size() * sizeof(std::uint32_t);
    info_.pData = values_.data();
  }
  SpecializationInfo(const SpecializationInfo&) = delete;
  SpecializationInfo& operator=(const SpecializationInfo&) = delete;

  const VkSpecializationInfo* get() const { return entries_.empty() ? nullptr : &info_; }

 private:
  std::vector<VkSpecializationMapEntry> entries_;
  std::vector<std::uint32_t> values_;
  VkSpecializationInfo info_{};
};

}  // namespace vktune::runtime
