#include "harness/device_info.hpp"
#include "harness/device_query.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "harness/coopmat_choice.hpp"
#include "harness/coopmat_khr_device.hpp"
#include "harness/driver_version.hpp"
#include "harness/image.hpp"

namespace vktune::vk {

namespace {

std::string hex_uuid(const std::uint8_t* bytes) {
  std::string text;
  char digits[3];
  for (unsigned i = 0; i < VK_UUID_SIZE; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    text += digits;
  }
  return text;
}

std::string device_type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

std::string version_text(std::uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::vector<std::string> subgroup_operation_names(VkSubgroupFeatureFlags flags) {
  static const std::pair<VkSubgroupFeatureFlagBits, const char*> kNames[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
  };
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames)
    if (flags & bit) names.emplace_back(name);
  return names;
}

#if defined(VK_NV_cooperative_matrix)
// The NV and KHR extensions share these values.
std::string component_type_name(VkComponentTypeNV type) {
  // VK_KHR_cooperative_matrix's list shares these values and may hold newer
  // ones that Debian 12's headers lack: VK_COMPONENT_TYPE_BFLOAT16_KHR
  // (VK_KHR_shader_bfloat16's), which the H200's driver lists.
  if (static_cast<std::uint32_t>(type) == 1000141000u) return "bf16";
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_NV: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV: return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV: return "s8";
    case VK_COMPONENT_TYPE_SINT16_NV: return "s16";
    case VK_COMPONENT_TYPE_SINT32_NV: return "s32";
    case VK_COMPONENT_TYPE_SINT64_NV: return "s64";
    case VK_COMPONENT_TYPE_UINT8_NV: return "u8";
    case VK_COMPONENT_TYPE_UINT16_NV: return "u16";
    case VK_COMPONENT_TYPE_UINT32_NV: return "u32";
    case VK_COMPONENT_TYPE_UINT64_NV: return "u64";
    default: return "unknown(" + std::to_string(static_cast<std::uint32_t>(type)) + ")";
  }
}

std::vector<CooperativeMatrixShape> cooperative_matrix_shapes(VkPhysicalDevice device) {
  std::vector<CooperativeMatrixShape> shapes;
  if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) return shapes;
  std::uint32_t count = 0;
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &count, nullptr) != VK_SUCCESS) return shapes;
  std::vector<VkCooperativeMatrixPropertiesNV> props(count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &count, props.data()) != VK_SUCCESS) return shapes;
  for (const auto& p : props) {
    shapes.push_back({p.MSize, p.NSize, p.KSize, component_type_name(p.AType), component_type_name(p.BType),
                      component_type_name(p.CType), component_type_name(p.DType),
                      p.scope == VK_SCOPE_SUBGROUP_NV ? "subgroup" : "other"});
  }
  return shapes;
}
#endif

}  // namespace

namespace coopmat_khr {

std::vector<CooperativeMatrixShape> khr_shapes(VkPhysicalDevice device) {
  using Get = VkResult(VKAPI_PTR*)(VkPhysicalDevice, std::uint32_t*, Properties*);
  std::vector<CooperativeMatrixShape> shapes;
  const auto get = reinterpret_cast<Get>(
      vkGetInstanceProcAddr(volkGetLoadedInstance(), "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!get) return shapes;
  std::uint32_t count = 0;
  if (get(device, &count, nullptr) != VK_SUCCESS) return shapes;
  std::vector<Properties> props(count);
  if (get(device, &count, props.data()) != VK_SUCCESS) return shapes;
  for (const auto& p : props) {
    auto type = [](std::uint32_t t) { return component_type_name(static_cast<VkComponentTypeNV>(t)); };
    shapes.push_back({p.MSize, p.NSize, p.KSize, type(p.AType), type(p.BType), type(p.CType), type(p.ResultType),
                      p.scope == VK_SCOPE_SUBGROUP_NV ? "subgroup" : "other"});
  }
  return shapes;
}

}  // namespace coopmat_khr

bool device_extension_supported(VkPhysicalDevice device, const char* name) {
  std::uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

DeviceInfo query_device_info(VkPhysicalDevice device, std::uint32_t index) {
  DeviceInfo info;
  info.index = index;

  // Properties: core, driver, subgroup, subgroup size control, ID.
  VkPhysicalDeviceSubgroupSizeControlProperties size_control{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  subgroup.pNext = &size_control;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  driver.pNext = &subgroup;
  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  ids.pNext = &driver;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &ids;
  vkGetPhysicalDeviceProperties2(device, &props);
  const auto& p = props.properties;

  const bool has_size_control_ext = p.apiVersion >= VK_API_VERSION_1_3 ||
                                    device_extension_supported(device, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);

  info.name = p.deviceName;
  info.device_type = device_type_name(p.deviceType);
  info.vendor_id = p.vendorID;
  info.vendor = vendor_name(p.vendorID);
  info.device_id = p.deviceID;
  info.driver_id = static_cast<std::uint32_t>(driver.driverID);
  info.driver_name = driver.driverName;
  info.driver_info = driver.driverInfo;
  info.driver_version_raw = p.driverVersion;
  info.driver_version = decode_driver_version(p.vendorID, p.driverVersion,
                                              driver.driverID == VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS);
  info.api_version_raw = p.apiVersion;
  info.api_version = version_text(p.apiVersion);
  info.device_uuid = hex_uuid(ids.deviceUUID);
  info.driver_uuid = hex_uuid(ids.driverUUID);

  info.subgroup_size = subgroup.subgroupSize;
  info.subgroup_operations = subgroup_operation_names(subgroup.supportedOperations);
  info.subgroup_in_compute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  if (has_size_control_ext) {
    info.min_subgroup_size = size_control.minSubgroupSize;
    info.max_subgroup_size = size_control.maxSubgroupSize;
    info.max_compute_workgroup_subgroups = size_control.maxComputeWorkgroupSubgroups;
    info.compute_required_subgroup_size =
        (size_control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  } else {
    info.min_subgroup_size = info.max_subgroup_size = subgroup.subgroupSize;
  }

  for (int i = 0; i < 3; ++i) {
    info.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
    info.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
  }
  info.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  info.max_shared_memory_bytes = p.limits.maxComputeSharedMemorySize;
  info.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment = p.limits.minStorageBufferOffsetAlignment;
  info.max_push_constants_bytes = p.limits.maxPushConstantsSize;
  info.max_image_dimension_2d = p.limits.maxImageDimension2D;
  info.max_image_dimension_3d = p.limits.maxImageDimension3D;
  for (const auto format : {ImageFormat::rgba32f, ImageFormat::rgba16f}) {
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(device, vk_format(format), &properties);
    const auto features = properties.optimalTilingFeatures;
    const VkFormatFeatureFlags transfer = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((features & (VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | transfer)) == (VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | transfer)) {
      info.storage_image_formats.push_back(format_name(format));
    }
    if ((features & (VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | transfer)) == (VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | transfer)) {
      info.sampled_image_formats.push_back(format_name(format));
    }
  }
  info.timestamp_period_ns = p.limits.timestampPeriod;

  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceProperties2 props_m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props_m3.pNext = &maintenance3;
  vkGetPhysicalDeviceProperties2(device, &props_m3);
  info.max_memory_allocation_bytes = maintenance3.maxMemoryAllocationSize;

  // The compute queue: prefer a family with compute and timestamps; the
  // first such family is what Device opens.
  std::uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &family_count, families.data());
  bool found = false;
  for (std::uint32_t i = 0; i < family_count && !found; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].timestampValidBits > 0) {
      info.compute_queue_family = i;
      info.timestamp_valid_bits = families[i].timestampValidBits;
      found = true;
    }
  }
  for (std::uint32_t i = 0; i < family_count && !found; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      info.compute_queue_family = i;
      found = true;
    }
  }

  // Features.
  VkPhysicalDeviceShaderIntegerDotProductFeatures dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
  VkPhysicalDeviceSubgroupSizeControlFeatures size_control_features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  storage8.pNext = &storage16;
  storage16.pNext = &f16i8;
  void* chain = &storage8;
  const bool has_dot_ext = p.apiVersion >= VK_API_VERSION_1_3 ||
                           device_extension_supported(device, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  if (has_size_control_ext) {
    size_control_features.pNext = chain;
    chain = &size_control_features;
  }
  if (has_dot_ext) {
    dot.pNext = chain;
    chain = &dot;
  }
  VkPhysicalDeviceVulkanMemoryModelFeatures memory_model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  const bool has_memory_model = p.apiVersion >= VK_API_VERSION_1_2 ||
                                device_extension_supported(device, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  if (has_memory_model) {
    memory_model.pNext = chain;
    chain = &memory_model;
  }
#if defined(VK_NV_cooperative_matrix)
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  const bool has_coopmat_ext = device_extension_supported(device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (has_coopmat_ext) {
    coopmat.pNext = chain;
    chain = &coopmat;
  }
#endif
  coopmat_khr::DeviceFeatures khr_coopmat;
  const bool has_khr_coopmat_ext = device_extension_supported(device, coopmat_khr::kDeviceExtension);
  if (has_khr_coopmat_ext) {
    khr_coopmat.pNext = chain;
    chain = &khr_coopmat;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  const bool has_executables_ext =
      device_extension_supported(device, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (has_executables_ext) {
    executables.pNext = chain;
    chain = &executables;
  }
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = chain;
  vkGetPhysicalDeviceFeatures2(device, &features);

  info.features.storage_buffer_16bit = storage16.storageBuffer16BitAccess;
  info.features.storage_buffer_8bit = storage8.storageBuffer8BitAccess;
  info.features.shader_float16 = f16i8.shaderFloat16;
  info.features.shader_int8 = f16i8.shaderInt8;
  info.features.shader_int16 = features.features.shaderInt16;
  info.features.shader_int64 = features.features.shaderInt64;
  info.features.integer_dot_product = has_dot_ext && dot.shaderIntegerDotProduct;
  info.features.vulkan_memory_model = has_memory_model && memory_model.vulkanMemoryModel;
  info.features.subgroup_size_control = has_size_control_ext && size_control_features.subgroupSizeControl;
  info.features.compute_full_subgroups = has_size_control_ext && size_control_features.computeFullSubgroups;
  if (!info.features.subgroup_size_control) info.compute_required_subgroup_size = false;
  info.features.pipeline_executable_info = has_executables_ext && executables.pipelineExecutableInfo;
#if defined(VK_NV_cooperative_matrix)
  info.features.cooperative_matrix_nv = has_coopmat_ext && coopmat.cooperativeMatrix;
  if (info.features.cooperative_matrix_nv) info.cooperative_matrix_shapes = cooperative_matrix_shapes(device);
#endif
  info.features.cooperative_matrix_khr = has_khr_coopmat_ext && khr_coopmat.cooperativeMatrix;
  if (info.features.cooperative_matrix_khr) info.khr_cooperative_matrix_shapes = coopmat_khr::khr_shapes(device);
  info.cooperative_matrix = cooperative_matrix_for(coopmat_request(), info.features);

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  for (std::uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    info.memory_heaps.push_back(
        {memory.memoryHeaps[i].size, (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0});
  }
  return info;
}

const std::vector<CooperativeMatrixShape>& DeviceInfo::tensor_core_shapes() const {
  static const std::vector<CooperativeMatrixShape> none;
  switch (cooperative_matrix) {
    case CooperativeMatrixExtension::nv: return cooperative_matrix_shapes;
    case CooperativeMatrixExtension::khr: return khr_cooperative_matrix_shapes;
    case CooperativeMatrixExtension::none: break;
  }
  return none;
}

std::uint64_t DeviceInfo::device_local_bytes() const {
  std::uint64_t largest = 0;
  for (const auto& heap : memory_heaps)
    if (heap.device_local) largest = std::max(largest, heap.size_bytes);
  return largest;
}

bool DeviceInfo::has_subgroup_operation(const std::string& op) const {
  return std::find(subgroup_operations.begin(), subgroup_operations.end(), op) != subgroup_operations.end();
}

bool DeviceInfo::supports_required_subgroup_size(std::uint32_t size) const {
  const bool power_of_two = size != 0 && (size & (size - 1)) == 0;
  return compute_required_subgroup_size && power_of_two && size >= min_subgroup_size && size <= max_subgroup_size;
}

}  // namespace vktune::vk
