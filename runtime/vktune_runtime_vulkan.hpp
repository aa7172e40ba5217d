#pragma once
// Glue between the runtime's answers and Vulkan, header only (C++17), over
// the C helpers of vktune_runtime_vulkan.h. Include it after <volk.h> or
// <vulkan/vulkan.h>, as the application does: it calls the Vulkan functions
// the application has (a loader's, or volk's pointers).
//
//   auto found = table.lookup(query);
//   vktune_vulkan_features enable;
//   vktune::runtime::require_features(physical, found.contract, enable);  // device_info.pNext = &enable.features2
//   ...
//   vktune::runtime::VulkanLaunch launch(device, found, query.shape);   // pipelines, layouts, descriptor set
//   for (std::size_t b = 0; b < launch.binding_bytes().size(); ++b)
//     launch.bind(b, my_buffer[b]);         // at least launch.binding_bytes()[b] bytes; scratch zeroed once
//   launch.record(command_buffer);          // every stage, with barriers between them
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vktune_runtime.hpp"
#include "vktune_runtime_vulkan.h"

namespace vktune::runtime {

// The identity without the UUID (Vulkan 1.0): the same-GPU levels cannot match.
inline DeviceIdentity identity_of(const VkPhysicalDeviceProperties& properties) {
  return {properties.vendorID, properties.deviceID, properties.driverVersion, properties.deviceName, ""};
}

// The identity with the physical GPU's UUID (Vulkan 1.1): what the
// runtime's same-GPU levels compare.
inline DeviceIdentity identity_of(VkPhysicalDevice physical) {
  vktune_vulkan_identity id;
  vktune_vulkan_identity_of(physical, &id);
  return {id.device.vendor_id, id.device.device_id, id.device.driver_version, id.name, id.uuid};
}

// What the device offers, for Query::capabilities: a fallback entry whose
// contract asks for more is skipped.
inline DeviceCapabilities capabilities_of(VkPhysicalDevice physical) {
  vktune_vulkan_capabilities offered;
  vktune_vulkan_capabilities_of(physical, &offered);
  const auto& c = offered.capabilities;
  return {true, std::vector<std::string>(c.features, c.features + c.feature_count), c.max_shared_memory_bytes,
          c.max_invocations, c.min_subgroup_size, c.max_subgroup_size, c.subgroup_size_control != 0,
          c.max_push_constant_bytes};
}

// Fills `enable` (pass &enable.features2 to vkCreateDevice, with
// enable.extensions) with every feature the contract needs; throws
// std::runtime_error naming one the device lacks.
inline void require_features(VkPhysicalDevice physical, const Contract& contract, vktune_vulkan_features& enable) {
  const auto names = device_features(contract);
  std::vector<const char*> pointers;
  for (const auto& name : names) pointers.push_back(name.c_str());
  const char* missing = nullptr;
  if (vktune_vulkan_features_for(physical, pointers.data(), pointers.size(), &enable, &missing) != VK_SUCCESS) {
    throw std::runtime_error(std::string("vktune: the device lacks ") + missing + ", which the variant needs");
  }
}

// A looked-up variant made runnable on one VkDevice (vktune_vulkan_launch:
// a shader module and pipeline per stage, one descriptor set layout, a
// pipeline layout with the variant's push constants (push_constant_words:
// its own layout, or the shape), a descriptor set). Owns
// them; move-only. Throws std::runtime_error naming the Vulkan call that
// failed.
class VulkanLaunch {
 public:
  VulkanLaunch(VkDevice device, const LookupResult& found, const Shape& shape) : bytes_(found.binding_bytes) {
    const auto& stages = found.contract.stages;
    std::vector<std::vector<vktune_specialization>> constants(stages.size());
    std::vector<vktune_variant> variants(stages.size());
    std::vector<std::uint32_t> workgroups;
    for (std::size_t s = 0; s < stages.size(); ++s) {
      for (const auto& c : stages[s].specialization) constants[s].push_back({c.id, c.value});
      auto& v = variants[s];
      v.spirv = stages[s].spirv.data();
      v.spirv_words = stages[s].spirv.size();
      v.specialization = constants[s].data();
      v.specialization_count = constants[s].size();
      v.required_subgroup_size = stages[s].required_subgroup_size;
      v.require_full_subgroups = stages[s].require_full_subgroups ? 1 : 0;
      workgroups.insert(workgroups.end(), found.workgroups.at(s).begin(), found.workgroups.at(s).end());
    }
    // A version-1 entry lists no bindings: the caller binds what its kernel uses.
    const auto bindings = found.contract.bindings.empty() ? VKTUNE_VULKAN_MAX_BINDINGS : found.contract.bindings.size();
    if (bytes_.empty()) bytes_.assign(bindings, 0);
    const auto words = push_constant_words(found.contract, shape);
    // Each binding's role (a uniform buffer or a storage buffer) and alias.
    std::vector<vktune_binding> info;
    for (std::size_t b = 0; b < found.contract.bindings.size(); ++b) {
      const auto& binding = found.contract.bindings[b];
      info.push_back({binding.name.c_str(), static_cast<vktune_binding_role>(static_cast<int>(binding.role)),
                      bytes_.at(b), binding.alias_of, nullptr});
    }
    if (vktune_vulkan_launch_create_stages(device, variants.data(), workgroups.data(), variants.size(),
                                           static_cast<std::uint32_t>(bindings), info.empty() ? nullptr : info.data(),
                                           words.data(), words.size(), &launch_) != VK_SUCCESS) {
      throw std::runtime_error(std::string("vktune: ") + launch_.failed + " failed");
    }
  }
  VulkanLaunch(const VulkanLaunch&) = delete;
  VulkanLaunch& operator=(const VulkanLaunch&) = delete;
  // The C struct holds handles and values only: moving copies it and empties the source.
  VulkanLaunch(VulkanLaunch&& other) noexcept : launch_(other.launch_), bytes_(std::move(other.bytes_)) {
    other.launch_ = {};
  }
  VulkanLaunch& operator=(VulkanLaunch&& other) noexcept {
    if (this != &other) {
      vktune_vulkan_launch_destroy(&launch_);
      launch_ = std::exchange(other.launch_, vktune_vulkan_launch{});
      bytes_ = std::move(other.bytes_);
    }
    return *this;
  }
  ~VulkanLaunch() { vktune_vulkan_launch_destroy(&launch_); }

  // Bytes each binding needs for the shape (the contract's size rules).
  const std::vector<std::uint64_t>& binding_bytes() const { return bytes_; }

  // Points binding `index` at a buffer (whole range from `offset`; a
  // uniform binding its block's bytes), and every binding aliasing it too.
  void bind(std::size_t index, VkBuffer buffer, VkDeviceSize offset = 0) {
    vktune_vulkan_launch_bind(&launch_, static_cast<std::uint32_t>(index), buffer, offset);
  }

  // Records every stage into `commands`, a compute-to-compute barrier
  // between them. The caller orders the launch against its own work.
  void record(VkCommandBuffer commands) const { vktune_vulkan_launch_record(&launch_, commands); }

 private:
  vktune_vulkan_launch launch_{};
  std::vector<std::uint64_t> bytes_;
};

}  // namespace vktune::runtime
