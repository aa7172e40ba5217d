#include "harness/device.hpp"

#include <atomic>
#include <bit>

#include "common/error.hpp"
#include "harness/coopmat_choice.hpp"
#include "harness/coopmat_khr_device.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

std::vector<DeviceInfo> list_devices(const Instance& instance) {
  std::vector<DeviceInfo> infos;
  auto devices = instance.physical_devices();
  for (std::uint32_t i = 0; i < devices.size(); ++i) infos.push_back(query_device_info(devices[i], i));
  return infos;
}

Device::Device(Instance& instance, std::uint32_t index) : instance_(&instance) {
  auto devices = instance.physical_devices();
  if (devices.empty()) {
    throw Error(ErrorKind::no_device,
                "no Vulkan device found; install a driver (e.g. `apt-get install mesa-vulkan-drivers` for lavapipe)");
  }
  if (index >= devices.size()) {
    throw Error(ErrorKind::no_device, "no Vulkan device with index " + std::to_string(index) + "; valid indices are 0.." +
                                          std::to_string(devices.size() - 1) + " (see `vktune devices`)");
  }
  physical_ = devices[index];
  info_ = query_device_info(physical_, index);
  if (info_.api_version_raw < VK_API_VERSION_1_2) {
    throw Error(ErrorKind::no_device, "device " + std::to_string(index) + " (" + info_.name + ") supports Vulkan " +
                                          info_.api_version + "; vktune needs 1.2 or newer");
  }
  if (auto refusal = cooperative_matrix_refusal(coopmat_request(), info_); !refusal.empty()) {
    throw Error(ErrorKind::usage, refusal);
  }
  note_device_cooperative_matrix(info_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  // Enable what the device has of what our kernels use. Each struct is only
  // chained when its feature (or extension) exists on this device.
  const auto& f = info_.features;
  const bool core13 = info_.api_version_raw >= VK_API_VERSION_1_3;
  std::vector<const char*> extensions;
  void* chain = nullptr;
  // Puts a feature struct at the head of the chain that device creation reads.
  const auto link = [&chain](auto& features) {
    features.pNext = chain;
    chain = &features;
  };

  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  storage16.storageBuffer16BitAccess = f.storage_buffer_16bit;
  link(storage16);
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  storage8.storageBuffer8BitAccess = f.storage_buffer_8bit;
  link(storage8);
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  f16i8.shaderFloat16 = f.shader_float16;
  f16i8.shaderInt8 = f.shader_int8;
  link(f16i8);

  VkPhysicalDeviceSubgroupSizeControlFeatures size_control{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  if (f.subgroup_size_control) {
    size_control.subgroupSizeControl = VK_TRUE;
    size_control.computeFullSubgroups = f.compute_full_subgroups;
    link(size_control);
    if (!core13) extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  }
  // Shaders that declare the VulkanMemoryModel capability (the NV
  // cooperative-matrix templates) need the feature enabled.
  VkPhysicalDeviceVulkanMemoryModelFeatures memory_model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  if (f.vulkan_memory_model) {
    memory_model.vulkanMemoryModel = VK_TRUE;
    link(memory_model);
    if (info_.api_version_raw < VK_API_VERSION_1_2) extensions.push_back(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  }
  VkPhysicalDeviceShaderIntegerDotProductFeatures dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
  if (f.integer_dot_product) {
    dot.shaderIntegerDotProduct = VK_TRUE;
    link(dot);
    if (!core13) extensions.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  }
  // The one cooperative-matrix extension the tensor-core modules use here.
#if defined(VK_NV_cooperative_matrix)
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  if (info_.cooperative_matrix == CooperativeMatrixExtension::nv) {
    coopmat.cooperativeMatrix = VK_TRUE;
    link(coopmat);
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
#endif
  coopmat_khr::DeviceFeatures khr_coopmat;
  if (info_.cooperative_matrix == CooperativeMatrixExtension::khr) {
    khr_coopmat.cooperativeMatrix = VK_TRUE;
    link(khr_coopmat);
    extensions.push_back(coopmat_khr::kDeviceExtension);
  }
  // What the driver made of each pipeline (registers, spills), where it says.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (f.pipeline_executable_info) {
    executables.pipelineExecutableInfo = VK_TRUE;
    link(executables);
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.shaderInt16 = f.shader_int16;
  features.features.shaderInt64 = f.shader_int64;
  features.pNext = chain;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = info_.compute_queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  create.pNext = &features;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue_info;
  create.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(physical_, &create, nullptr, &device_), "vkCreateDevice for " + info_.name);
  // Device-level entry points are loaded through the instance table so that
  // several devices can coexist in one process.
  vkGetDeviceQueue(device_, info_.compute_queue_family, 0, &queue_);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = info_.compute_queue_family;
  check(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), "vkCreateCommandPool");
}

Device::~Device() {
  clock_gauge_.reset();  // its pipeline and buffers first (leaked by themselves when unusable)
  if (!usable()) return;  // see mark_unusable(): leaking beats hanging
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
}

namespace {
std::atomic<bool> device_abandoned{false};
}  // namespace

bool any_device_abandoned() { return device_abandoned.load(); }

void Device::mark_unusable(const std::string& reason) {
  if (unusable_reason_.empty()) unusable_reason_ = reason;
  device_abandoned = true;
}

std::uint32_t Device::memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) const {
  // Among the types with every required flag: most preferred flags first,
  // then fewest flags nobody asked for (plain device-local memory rather
  // than a host-visible BAR window onto it, whose placement and caching the
  // driver may treat differently).
  int best = -1;
  int best_preferred = -1, best_extra = 0;
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!(type_bits & (1u << i)) || (flags & required) != required) continue;
    const int have_preferred = std::popcount(flags & preferred);
    const int extra = std::popcount(flags & ~(required | preferred));
    if (have_preferred > best_preferred || (have_preferred == best_preferred && extra < best_extra)) {
      best = static_cast<int>(i);
      best_preferred = have_preferred;
      best_extra = extra;
    }
  }
  if (best < 0) throw Error(ErrorKind::vulkan, "no memory type on " + info_.name + " has the required properties");
  return static_cast<std::uint32_t>(best);
}

}  // namespace vktune::vk
