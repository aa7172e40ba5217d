#include "engine/runtime_device.hpp"

namespace vktune {

runtime::DeviceIdentity runtime_identity(const vk::DeviceInfo& info) {
  runtime::DeviceIdentity id;
  id.vendor_id = info.vendor_id;
  id.device_id = info.device_id;
  id.driver_version = info.driver_version_raw;
  id.name = info.name;
  id.uuid = info.device_uuid;
  return id;
}

runtime::DeviceCapabilities runtime_capabilities(const vk::DeviceInfo& info) {
  runtime::DeviceCapabilities caps;
  caps.known = true;
  const auto& f = info.features;
  const std::pair<bool, const char*> enabled[] = {
      {f.storage_buffer_16bit, "storageBuffer16BitAccess"}, {f.storage_buffer_8bit, "storageBuffer8BitAccess"},
      {f.shader_float16, "shaderFloat16"},                  {f.shader_int8, "shaderInt8"},
      {f.shader_int16, "shaderInt16"},                      {f.integer_dot_product, "shaderIntegerDotProduct"},
      {f.vulkan_memory_model, "vulkanMemoryModel"},
      // The one cooperative-matrix extension vk::Device enables.
      {info.cooperative_matrix == vk::CooperativeMatrixExtension::nv, "cooperativeMatrixNV"},
      {info.cooperative_matrix == vk::CooperativeMatrixExtension::khr, "cooperativeMatrixKHR"},
  };
  for (const auto& [on, name] : enabled) {
    if (on) caps.features.emplace_back(name);
  }
  // The subgroup operations, as required_features names them.
  if (info.subgroup_in_compute) {
    for (const auto& op : info.subgroup_operations) caps.features.push_back("subgroup_" + op);
  }
  caps.max_shared_memory_bytes = info.max_shared_memory_bytes;
  caps.max_invocations = info.max_workgroup_invocations;
  caps.min_subgroup_size = info.min_subgroup_size;
  caps.max_subgroup_size = info.max_subgroup_size;
  caps.subgroup_size_control = f.subgroup_size_control && info.compute_required_subgroup_size;
  return caps;
}

}  // namespace vktune
