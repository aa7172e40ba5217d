#pragma once
// Everything vktune needs to know about a physical device before opening it:
// identity (for the results database), limits (for kernel constraints),
// subgroup facts, optional features and timing properties. Plain data,
// free of Vulkan's headers so that kernels can reason about a device without
// them; harness/device_query.hpp fills it in.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vktune::vk {

struct CooperativeMatrixShape {
  std::uint32_t m = 0, n = 0, k = 0;
  std::string a_type, b_type, c_type, d_type;  // "f16", "f32", "s8", "s32", ...
  std::string scope;                           // "subgroup", ...
};

// The extension a device's tensor-core paths are compiled for in this
// process (harness/coopmat_choice.hpp decides): KHR (through the NV-to-KHR
// pass) where the device offers VK_KHR_cooperative_matrix, NV where it
// offers only VK_NV_cooperative_matrix, or what --coopmat forces.
enum class CooperativeMatrixExtension { none, nv, khr };

struct MemoryHeap {
  std::uint64_t size_bytes = 0;
  bool device_local = false;
};

struct DeviceFeatures {
  bool storage_buffer_16bit = false;
  bool storage_buffer_8bit = false;
  bool shader_float16 = false;
  bool shader_int8 = false;
  bool shader_int16 = false;
  bool shader_int64 = false;
  bool integer_dot_product = false;
  bool subgroup_size_control = false;
  bool compute_full_subgroups = false;
  bool cooperative_matrix_nv = false;
  // VK_KHR_cooperative_matrix's cooperativeMatrix (what AMD, Intel, Arm and
  // Qualcomm drivers offer; harness/coopmat_khr_device.hpp).
  bool cooperative_matrix_khr = false;
  // The Vulkan memory model (core in 1.2): the NV cooperative-matrix shaders declare it.
  bool vulkan_memory_model = false;
  // VK_KHR_pipeline_executable_properties' pipelineExecutableInfo: what the
  // driver made of a pipeline (registers, spills, ...) can be read back.
  bool pipeline_executable_info = false;
};

struct DeviceInfo {
  std::uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  std::string name;
  std::string device_type;  // "discrete", "integrated", "virtual", "cpu", "other"
  std::uint32_t vendor_id = 0;
  std::string vendor;
  std::uint32_t device_id = 0;
  std::uint32_t driver_id = 0;  // VkDriverId
  std::string driver_name, driver_info;
  std::uint32_t driver_version_raw = 0;
  std::string driver_version;  // decoded per vendor
  std::uint32_t api_version_raw = 0;
  std::string api_version;
  std::string device_uuid, driver_uuid;  // 32 hex digits

  std::uint32_t subgroup_size = 0, min_subgroup_size = 0, max_subgroup_size = 0;
  bool compute_required_subgroup_size = false;  // compute in requiredSubgroupSizeStages
  std::uint32_t max_compute_workgroup_subgroups = 0;
  std::vector<std::string> subgroup_operations;  // "basic", "vote", "arithmetic", "ballot", "shuffle", ...
  bool subgroup_in_compute = false;

  std::array<std::uint32_t, 3> max_workgroup_size{};
  std::uint32_t max_workgroup_invocations = 0;
  std::array<std::uint32_t, 3> max_workgroup_count{};
  std::uint32_t max_shared_memory_bytes = 0;
  std::uint32_t max_storage_buffer_range = 0;
  std::uint64_t min_storage_buffer_offset_alignment = 1;  // a bound storage buffer's offset is a multiple of it
  std::uint32_t max_push_constants_bytes = 0;
  std::uint64_t max_memory_allocation_bytes = 0;
  std::uint32_t max_image_dimension_2d = 0, max_image_dimension_3d = 0;
  // The image formats (harness/image_binding.hpp's names: "rgba32f", ...)
  // whose optimal tiling offers STORAGE_IMAGE, and SAMPLED_IMAGE, each with
  // both transfer directions: what a spec's image binding needs.
  std::vector<std::string> storage_image_formats, sampled_image_formats;

  std::uint32_t compute_queue_family = 0;
  double timestamp_period_ns = 0;       // nanoseconds per tick
  std::uint32_t timestamp_valid_bits = 0;  // of the compute queue; 0 = no timestamps

  DeviceFeatures features;
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;      // through VK_NV_cooperative_matrix
  std::vector<CooperativeMatrixShape> khr_cooperative_matrix_shapes;  // through VK_KHR_cooperative_matrix
  // Which of the two the tensor-core paths use here, and so which list of
  // shapes their legality reads (tensor_core_shapes()).
  CooperativeMatrixExtension cooperative_matrix = CooperativeMatrixExtension::none;
  std::vector<MemoryHeap> memory_heaps;

  std::uint64_t device_local_bytes() const;  // largest device-local heap
  // The shapes of `cooperative_matrix`'s extension; empty for none.
  const std::vector<CooperativeMatrixShape>& tensor_core_shapes() const;
  bool has_subgroup_operation(const std::string& op) const;
  bool is_cpu() const { return device_type == "cpu"; }
  // True when a pipeline may require `size` for compute shaders.
  bool supports_required_subgroup_size(std::uint32_t size) const;
};

}  // namespace vktune::vk
