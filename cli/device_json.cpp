#include "cli/device_json.hpp"

namespace vktune {

nlohmann::json to_json(const vk::DeviceInfo& info) {
  using nlohmann::json;
  json heaps = json::array();
  for (const auto& heap : info.memory_heaps) heaps.push_back({{"size_bytes", heap.size_bytes}, {"device_local", heap.device_local}});
  auto shapes_json = [](const std::vector<vk::CooperativeMatrixShape>& list) {
    json shapes = json::array();
    for (const auto& s : list) {
      shapes.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"a", s.a_type}, {"b", s.b_type}, {"c", s.c_type},
                        {"d", s.d_type}, {"scope", s.scope}});
    }
    return shapes;
  };
  const auto& f = info.features;
  return {
      {"index", info.index},
      {"name", info.name},
      {"type", info.device_type},
      {"vendor", info.vendor},
      {"vendor_id", info.vendor_id},
      {"device_id", info.device_id},
      {"driver_id", info.driver_id},
      {"driver_name", info.driver_name},
      {"driver_info", info.driver_info},
      {"driver_version", info.driver_version},
      {"driver_version_raw", info.driver_version_raw},
      {"api_version", info.api_version},
      {"device_uuid", info.device_uuid},
      {"driver_uuid", info.driver_uuid},
      {"subgroup",
       {{"size", info.subgroup_size},
        {"min_size", info.min_subgroup_size},
        {"max_size", info.max_subgroup_size},
        {"compute_required_size", info.compute_required_subgroup_size},
        {"max_compute_workgroup_subgroups", info.max_compute_workgroup_subgroups},
        {"operations", info.subgroup_operations},
        {"in_compute", info.subgroup_in_compute}}},
      {"limits",
       {{"max_workgroup_size", info.max_workgroup_size},
        {"max_workgroup_invocations", info.max_workgroup_invocations},
        {"max_workgroup_count", info.max_workgroup_count},
        {"max_shared_memory_bytes", info.max_shared_memory_bytes},
        {"max_storage_buffer_range", info.max_storage_buffer_range},
        {"min_storage_buffer_offset_alignment", info.min_storage_buffer_offset_alignment},
        {"max_push_constants_bytes", info.max_push_constants_bytes},
        {"max_memory_allocation_bytes", info.max_memory_allocation_bytes}}},
      {"timestamps",
       {{"queue_family", info.compute_queue_family},
        {"period_ns", info.timestamp_period_ns},
        {"valid_bits", info.timestamp_valid_bits}}},
      {"features",
       {{"storage_buffer_16bit", f.storage_buffer_16bit},
        {"storage_buffer_8bit", f.storage_buffer_8bit},
        {"shader_float16", f.shader_float16},
        {"shader_int8", f.shader_int8},
        {"shader_int16", f.shader_int16},
        {"shader_int64", f.shader_int64},
        {"integer_dot_product", f.integer_dot_product},
        {"subgroup_size_control", f.subgroup_size_control},
        {"compute_full_subgroups", f.compute_full_subgroups},
        {"cooperative_matrix_nv", f.cooperative_matrix_nv},
        {"cooperative_matrix_khr", f.cooperative_matrix_khr},
        {"vulkan_memory_model", f.vulkan_memory_model},
        {"pipeline_executable_info", f.pipeline_executable_info}}},
      {"cooperative_matrix_shapes", shapes_json(info.cooperative_matrix_shapes)},
      {"khr_cooperative_matrix_shapes", shapes_json(info.khr_cooperative_matrix_shapes)},
      // Which of the two the tensor-core paths use here: "nv", "khr" or "none".
      {"tensor_core_extension", info.cooperative_matrix == vk::CooperativeMatrixExtension::nv    ? "nv"
                                : info.cooperative_matrix == vk::CooperativeMatrixExtension::khr ? "khr"
                                                                                                 : "none"},
      {"memory_heaps", heaps},
  };
}

}  // namespace vktune
