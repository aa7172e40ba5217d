#pragma once
// Glue between the runtime's answers and Vulkan, header only (C++17). Include
// it after <volk.h> or <vulkan/vulkan.h>, as the application does: it calls
// the Vulkan functions the application has (a loader's, or volk's pointers).
//
//   auto found = table.lookup(query);
//   vktune::runtime::VulkanLaunch launch(device, found, query.shape);   // pipelines, layouts, descriptor set
//   for (std::size_t b = 0; b < launch.binding_bytes().size(); ++b)
//     launch.bind(b, my_buffer[b]);         // at least launch.binding_bytes()[b] bytes; scratch zeroed once
//   launch.record(command_buffer);          // every stage, with barriers between them
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
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

// The identity with the physical GPU's UUID (VkPhysicalDeviceIDProperties,
// Vulkan 1.1): what the runtime's same-GPU levels compare.
inline DeviceIdentity identity_of(VkPhysicalDevice physical) {
  VkPhysicalDeviceIDProperties ids{};
  ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &ids;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  DeviceIdentity id = identity_of(properties.properties);
  static const char digits[] = "0123456789abcdef";
  for (const auto byte : ids.deviceUUID) {
    id.uuid += digits[byte >> 4];
    id.uuid += digits[byte & 15];
  }
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

// A looked-up variant made runnable on one VkDevice: a shader module and
// pipeline per stage, one descriptor set layout (every binding a storage
// buffer at set 0), a pipeline layout with the shape as push constants, and a
// descriptor set. Owns all of them; move-only. Throws std::runtime_error
// naming the Vulkan call that failed.
class VulkanLaunch {
 public:
  VulkanLaunch(VkDevice device, const LookupResult& found, Shape shape)
      : device_(device), shape_(std::move(shape)), workgroups_(found.workgroups), bytes_(found.binding_bytes) {
    const auto& stages = found.contract.stages;
    // A version-1 entry lists no bindings: the caller binds what its kernel uses.
    const std::size_t bindings = found.contract.bindings.empty() ? 8 : found.contract.bindings.size();
    if (bytes_.empty()) bytes_.assign(bindings, 0);
    std::vector<VkDescriptorSetLayoutBinding> layout_bindings(bindings);
    for (std::size_t b = 0; b < bindings; ++b) {
      layout_bindings[b] = {static_cast<std::uint32_t>(b), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                            VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, nullptr, 0,
                                             static_cast<std::uint32_t>(bindings), layout_bindings.data()};
    check(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                   static_cast<std::uint32_t>(shape_.size() * sizeof(std::uint32_t))};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 1, &set_layout_,
                                           1, &push};
    check(vkCreatePipelineLayout(device_, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");
    const VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, static_cast<std::uint32_t>(bindings)};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, nullptr, 0, 1, 1, &pool_size};
    check(vkCreateDescriptorPool(device_, &pool_info, nullptr, &pool_), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, nullptr, pool_, 1, &set_layout_};
    check(vkAllocateDescriptorSets(device_, &alloc, &set_), "vkAllocateDescriptorSets");
    for (const auto& stage : stages) {
      VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0,
                                           stage.spirv.size() * sizeof(std::uint32_t), stage.spirv.data()};
      VkShaderModule module = VK_NULL_HANDLE;
      check(vkCreateShaderModule(device_, &module_info, nullptr, &module), "vkCreateShaderModule");
      modules_.push_back(module);
      const SpecializationInfo specialization(stage);
      VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
          VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO, nullptr,
          stage.required_subgroup_size};
      VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
      pipeline_info.stage.pNext = stage.required_subgroup_size != 0 ? &subgroup : nullptr;
      pipeline_info.stage.flags =
          stage.require_full_subgroups ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0;
      pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      pipeline_info.stage.module = module;
      pipeline_info.stage.pName = "main";
      pipeline_info.stage.pSpecializationInfo = specialization.get();
      pipeline_info.layout = layout_;
      VkPipeline pipeline = VK_NULL_HANDLE;
      check(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline),
            "vkCreateComputePipelines");
      pipelines_.push_back(pipeline);
    }
  }
  VulkanLaunch(const VulkanLaunch&) = delete;
  VulkanLaunch& operator=(const VulkanLaunch&) = delete;
  VulkanLaunch(VulkanLaunch&& other) noexcept { *this = std::move(other); }
  VulkanLaunch& operator=(VulkanLaunch&& other) noexcept {
    if (this != &other) {
      destroy();
      device_ = std::exchange(other.device_, VkDevice{VK_NULL_HANDLE});
      shape_ = std::move(other.shape_);
      workgroups_ = std::move(other.workgroups_);
      bytes_ = std::move(other.bytes_);
      set_layout_ = std::exchange(other.set_layout_, VkDescriptorSetLayout{VK_NULL_HANDLE});
      layout_ = std::exchange(other.layout_, VkPipelineLayout{VK_NULL_HANDLE});
      pool_ = std::exchange(other.pool_, VkDescriptorPool{VK_NULL_HANDLE});
      set_ = std::exchange(other.set_, VkDescriptorSet{VK_NULL_HANDLE});
      modules_ = std::move(other.modules_);
      pipelines_ = std::move(other.pipelines_);
    }
    return *this;
  }
  ~VulkanLaunch() { destroy(); }

  // Bytes each binding needs for the shape (the contract's size rules).
  const std::vector<std::uint64_t>& binding_bytes() const { return bytes_; }

  // Points binding `index` at a buffer (whole range from `offset`).
  void bind(std::size_t index, VkBuffer buffer, VkDeviceSize offset = 0) {
    const VkDescriptorBufferInfo info{buffer, offset, VK_WHOLE_SIZE};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set_;
    write.dstBinding = static_cast<std::uint32_t>(index);
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
  }

  // Records every stage into `commands`, a compute-to-compute barrier
  // between them. The caller orders the launch against its own work.
  void record(VkCommandBuffer commands) const {
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
    vkCmdPushConstants(commands, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<std::uint32_t>(shape_.size() * sizeof(std::uint32_t)), shape_.data());
    for (std::size_t s = 0; s < pipelines_.size(); ++s) {
      if (s > 0) {
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                             1, &barrier, 0, nullptr, 0, nullptr);
      }
      vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[s]);
      vkCmdDispatch(commands, workgroups_[s][0], workgroups_[s][1], workgroups_[s][2]);
    }
  }

 private:
  static void check(VkResult result, const char* what) {
    if (result != VK_SUCCESS) throw std::runtime_error(std::string("vktune: ") + what + " failed (VkResult " + std::to_string(result) + ")");
  }
  void destroy() {
    if (device_ == VK_NULL_HANDLE) return;
    for (auto p : pipelines_) vkDestroyPipeline(device_, p, nullptr);
    for (auto m : modules_) vkDestroyShaderModule(device_, m, nullptr);
    if (pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, pool_, nullptr);
    if (layout_ != VK_NULL_HANDLE) vkDestroyPipelineLayout(device_, layout_, nullptr);
    if (set_layout_ != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    pipelines_.clear();
    modules_.clear();
    device_ = VK_NULL_HANDLE;
  }

  VkDevice device_ = VK_NULL_HANDLE;
  Shape shape_;
  std::vector<std::array<std::uint32_t, 3>> workgroups_;
  std::vector<std::uint64_t> bytes_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules_;
  std::vector<VkPipeline> pipelines_;
};

}  // namespace vktune::runtime
