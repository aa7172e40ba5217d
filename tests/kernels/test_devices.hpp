#pragma once
// GPUs of other vendors than NVIDIA (and lavapipe on a 128-bit host), described as vk::DeviceInfo from their
// drivers' published limits, for device-free checks of what the kernels'
// spaces, legality and pruning make of them (the NVIDIA H200 is in
// kernel_test_support.hpp, from measurements/nvidia-h200/devices.json).
//
// Each description holds what vktune's device query (harness/device_info.cpp)
// would read on that GPU: limits, subgroup facts, features. Where a driver
// computes a value, the comment gives the rule and the value it gives on
// that GPU. Two facts vktune reads differently from a gpuinfo report:
//   - the tensor-core paths take VK_NV_cooperative_matrix where a driver
//     offers it and VK_KHR_cooperative_matrix otherwise
//     (harness/coopmat_choice.hpp); `cooperative_matrix` says which, and
//     each extension's shapes are listed apart.
//   - integer_dot_product is shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product,
//     core in 1.3), whether or not the driver accelerates it.
#include <cstdint>
#include <vector>

#include "harness/device_info.hpp"
#include "harness/driver_version.hpp"

namespace vktune::testing_support {

// AMD Radeon RX 7900 XTX (Navi 31, RDNA 3, gfx1100) on Mesa's RADV, from
// RADV's physical-device properties (src/amd/vulkan/radv_physical_device.c,
// Mesa 24.x):
//   - subgroupSize 64 (RADV_SUBGROUP_SIZE);
//     minSubgroupSize 32 on GFX10+ (wave32), maxSubgroupSize 64;
//     requiredSubgroupSizeStages includes compute on GFX10+;
//     maxComputeWorkgroupSubgroups UINT32_MAX; subgroupSizeControl and
//     computeFullSubgroups supported;
//   - subgroupSupportedOperations: basic, vote, arithmetic, ballot, shuffle,
//     shuffle_relative, clustered, quad;
//   - maxComputeSharedMemorySize 65536 (the LDS a workgroup may use on GFX7+);
//     maxComputeWorkGroupInvocations 1024, maxComputeWorkGroupSize
//     1024×1024×1024, maxComputeWorkGroupCount 65535×65535×65535;
//     maxPushConstantsSize 256; maxStorageBufferRange UINT32_MAX;
//   - shaderFloat16, shaderInt8, shaderInt16, shaderInt64,
//     storageBuffer8BitAccess and storageBuffer16BitAccess supported;
//     shaderIntegerDotProduct supported (accelerated 4×8-bit on RDNA 3);
//     vulkanMemoryModel supported;
//   - timestampPeriod 10 ns (1e6 / the 100 MHz reference clock of GFX10+),
//     timestampValidBits 64;
//   - VK_KHR_cooperative_matrix on GFX11, no VK_NV_cooperative_matrix: the
//     KHR shapes are 16×16×16 in subgroup scope, f16 × f16 into f16 or f32
//     and 8-bit into s32 (RADV's list, as read for this file; the 8-bit
//     entries are left out here, no legality rule reads them); vktune's
//     tensor-core tiles assume subgroups of exactly 32, which RADV's 32..64
//     does not promise, so they stay illegal on it;
//   - a discrete GPU with 24 GiB of VRAM.
inline vk::DeviceInfo radeon_rx_7900_xtx() {
  vk::DeviceInfo d;
  d.name = "AMD Radeon RX 7900 XTX (RADV NAVI31)";
  d.device_type = "discrete";
  d.vendor_id = vk::kVendorAmd;
  d.vendor = "AMD";
  d.device_id = 0x744c;
  d.driver_id = 3;  // VK_DRIVER_ID_MESA_RADV
  d.driver_name = "radv";
  d.subgroup_size = 64;
  d.min_subgroup_size = 32;
  d.max_subgroup_size = 64;
  d.compute_required_subgroup_size = true;
  d.max_compute_workgroup_subgroups = 0xffffffffu;
  d.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"};
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {1024, 1024, 1024};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 65536;
  d.max_storage_buffer_range = 0xffffffffu;
  d.max_push_constants_bytes = 256;
  d.timestamp_period_ns = 10.0;
  d.timestamp_valid_bits = 64;
  d.features.storage_buffer_16bit = true;
  d.features.storage_buffer_8bit = true;
  d.features.shader_float16 = true;
  d.features.shader_int8 = true;
  d.features.shader_int16 = true;
  d.features.shader_int64 = true;
  d.features.integer_dot_product = true;
  d.features.subgroup_size_control = true;
  d.features.compute_full_subgroups = true;
  d.features.vulkan_memory_model = true;
  d.features.cooperative_matrix_khr = true;
  d.khr_cooperative_matrix_shapes = {{16, 16, 16, "f16", "f16", "f16", "f16", "subgroup"},
                                     {16, 16, 16, "f16", "f16", "f32", "f32", "subgroup"}};
  d.cooperative_matrix = vk::CooperativeMatrixExtension::khr;
  d.memory_heaps = {{std::uint64_t{24} << 30, true}};
  return d;
}

// Intel Arc A770 (DG2-G10, Xe-HPG, Gfx12.5) on Mesa's ANV, from ANV's
// physical-device properties (src/intel/vulkan/anv_physical_device.c,
// Mesa 24.x):
//   - subgroupSize 32 (BRW_SUBGROUP_SIZE); minSubgroupSize 8 before Xe2
//     (16 from Xe2), maxSubgroupSize 32: SIMD8, SIMD16 and SIMD32;
//     requiredSubgroupSizeStages includes compute; subgroupSizeControl and
//     computeFullSubgroups supported; maxComputeWorkgroupSubgroups is the
//     hardware threads a workgroup may take: on Gfx12.5 every thread of a
//     dual subslice, 112 in Mesa's Gfx12 device table;
//   - subgroupSupportedOperations: basic, vote, arithmetic, ballot, shuffle,
//     shuffle_relative, clustered, quad;
//   - maxComputeSharedMemorySize 65536 (intel_device_info_get_max_slm_size
//     before Xe2); maxComputeWorkGroupInvocations min(1024, 32 × threads) =
//     1024, maxComputeWorkGroupSize 1024×1024×1024, maxComputeWorkGroupCount
//     65535×65535×65535; maxPushConstantsSize 128 (ANV's
//     MAX_PUSH_CONSTANTS_SIZE); maxStorageBufferRange min(buffer, heap,
//     UINT32_MAX) = UINT32_MAX on a 16 GiB board;
//   - shaderFloat16, shaderInt8, shaderInt16, shaderInt64 (emulated),
//     storageBuffer8BitAccess and storageBuffer16BitAccess supported;
//     shaderIntegerDotProduct supported (DP4A accelerated on Gfx12+);
//     vulkanMemoryModel supported;
//   - timestampPeriod 1e9 / the command streamer's timestamp frequency,
//     which the kernel reports (19.2 MHz under i915 on DG2: 52.083 ns);
//     timestampValidBits 36 (ANV's queue families);
//   - VK_KHR_cooperative_matrix on DG2, no VK_NV_cooperative_matrix: DPAS
//     shapes of 8 rows (8×8×16, f16 × f16 into f32, subgroup scope), none
//     of the 16-row shapes vktune's tensor-core tiles take;
//   - a discrete GPU with 16 GiB of VRAM.
inline vk::DeviceInfo arc_a770() {
  vk::DeviceInfo d;
  d.name = "Intel(R) Arc(tm) A770 Graphics (DG2)";
  d.device_type = "discrete";
  d.vendor_id = vk::kVendorIntel;
  d.vendor = "Intel";
  d.device_id = 0x56a0;
  d.driver_id = 6;  // VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA
  d.driver_name = "Intel open-source Mesa driver";
  d.subgroup_size = 32;
  d.min_subgroup_size = 8;
  d.max_subgroup_size = 32;
  d.compute_required_subgroup_size = true;
  d.max_compute_workgroup_subgroups = 112;
  d.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"};
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {1024, 1024, 1024};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 65536;
  d.max_storage_buffer_range = 0xffffffffu;
  d.max_push_constants_bytes = 128;
  d.timestamp_period_ns = 1e9 / 19.2e6;
  d.timestamp_valid_bits = 36;
  d.features.storage_buffer_16bit = true;
  d.features.storage_buffer_8bit = true;
  d.features.shader_float16 = true;
  d.features.shader_int8 = true;
  d.features.shader_int16 = true;
  d.features.shader_int64 = true;
  d.features.integer_dot_product = true;
  d.features.subgroup_size_control = true;
  d.features.compute_full_subgroups = true;
  d.features.vulkan_memory_model = true;
  d.features.cooperative_matrix_khr = true;
  d.khr_cooperative_matrix_shapes = {{8, 8, 16, "f16", "f16", "f32", "f32", "subgroup"}};
  d.cooperative_matrix = vk::CooperativeMatrixExtension::khr;
  d.memory_heaps = {{std::uint64_t{16} << 30, true}};
  return d;
}

// Arm Mali-G715 (Valhall, 4th generation) on Arm's driver. The subgroup,
// shared-memory, workgroup-count, subgroup-operation and feature facts are
// also what Mesa's panvk gives Valhall (src/panfrost/vulkan/
// panvk_vX_physical_device.c, read for this file); the invocation limit and
// push-constant size are as vulkan.gpuinfo.org's reports of Arm's driver on
// this GPU give them (from those reports as remembered, not fetched for this
// file: check there before leaning on them):
//   - subgroupSize 16, minSubgroupSize = maxSubgroupSize = 16 (one warp
//     width: nothing to choose), requiredSubgroupSizeStages includes
//     compute, subgroupSizeControl and computeFullSubgroups supported;
//     maxComputeWorkgroupSubgroups 1024 / 16 = 64;
//   - subgroupSupportedOperations: basic, vote, arithmetic, ballot, shuffle,
//     shuffle_relative, clustered, quad;
//   - maxComputeSharedMemorySize 32768 (shared memory is backed by the
//     caches on Mali; both drivers report 32 KiB);
//     maxComputeWorkGroupInvocations 1024, maxComputeWorkGroupSize
//     1024×1024×1024 (the GPU's threads per workgroup; 512 on some earlier
//     Valhall parts); maxComputeWorkGroupCount 65535×65535×65535;
//     maxPushConstantsSize 128 (Arm's driver; panvk offers 256);
//     maxStorageBufferRange UINT32_MAX (panvk's; Arm's drivers have reported
//     less on earlier Malis, and no legality check reads it);
//   - shaderFloat16, shaderInt8, shaderInt16, shaderInt64,
//     storageBuffer8BitAccess and storageBuffer16BitAccess supported;
//     shaderIntegerDotProduct supported; vulkanMemoryModel supported;
//   - no cooperative matrix of any kind (neither NV nor KHR), so no fp16
//     cooperative path either;
//   - timestampPeriod is the period of the SoC's system counter, which the
//     driver scales by and which differs between SoCs that carry a
//     Mali-G715: left unset (0), as nothing device-free reads it;
//   - an integrated GPU sharing the system's memory (12 GiB here, a phone's).
inline vk::DeviceInfo mali_g715() {
  vk::DeviceInfo d;
  d.name = "Mali-G715";
  d.device_type = "integrated";
  d.vendor_id = vk::kVendorArm;
  d.vendor = "ARM";
  d.driver_id = 9;  // VK_DRIVER_ID_ARM_PROPRIETARY
  d.driver_name = "Mali";
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 16;
  d.compute_required_subgroup_size = true;
  d.max_compute_workgroup_subgroups = 64;
  d.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"};
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {1024, 1024, 1024};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 32768;
  d.max_storage_buffer_range = 0xffffffffu;
  d.max_push_constants_bytes = 128;
  d.features.storage_buffer_16bit = true;
  d.features.storage_buffer_8bit = true;
  d.features.shader_float16 = true;
  d.features.shader_int8 = true;
  d.features.shader_int16 = true;
  d.features.shader_int64 = true;
  d.features.integer_dot_product = true;
  d.features.subgroup_size_control = true;
  d.features.compute_full_subgroups = true;
  d.features.vulkan_memory_model = true;
  d.memory_heaps = {{std::uint64_t{12} << 30, true}};
  return d;
}

// Mesa's lavapipe on a host whose SIMD registers are 128 bits wide: an
// aarch64 host (NEON), or any host with LP_NATIVE_VECTOR_WIDTH=128. llvmpipe
// runs one invocation per 32-bit lane, so a subgroup is 4 invocations, the
// smallest any device above offers and less than the 8 the AVX2 hosts CI
// runs on give. Read with `vktune devices --json` under
// LP_NATIVE_VECTOR_WIDTH=128 on Mesa 22.3.6 (Debian 12; CI's lavapipe):
//   - subgroupSize 4, minSubgroupSize = maxSubgroupSize = 4,
//     requiredSubgroupSizeStages includes compute, subgroupSizeControl and
//     computeFullSubgroups supported; maxComputeWorkgroupSubgroups 32;
//   - subgroupSupportedOperations: basic, vote, arithmetic, ballot, shuffle,
//     shuffle_relative, quad (no clustered);
//   - maxComputeSharedMemorySize 32768; maxComputeWorkGroupInvocations 1024,
//     maxComputeWorkGroupSize 1024×1024×1024, maxComputeWorkGroupCount
//     65535×65535×65535; maxPushConstantsSize 128; maxStorageBufferRange
//     2^27; maxMemoryAllocationSize 2 GiB;
//   - shaderFloat16, shaderInt8, shaderInt16, shaderInt64,
//     storageBuffer8BitAccess and storageBuffer16BitAccess,
//     shaderIntegerDotProduct and vulkanMemoryModel supported; no
//     cooperative matrix;
//   - timestampPeriod 1 ns, timestampValidBits 64;
//   - a CPU device with a 2 GiB heap.
inline vk::DeviceInfo lavapipe_128_bit() {
  vk::DeviceInfo d;
  d.name = "llvmpipe (LLVM 15.0.6, 128 bits)";
  d.device_type = "cpu";
  d.vendor_id = vk::kVendorMesa;
  d.vendor = "Mesa";
  d.driver_id = 13;  // VK_DRIVER_ID_MESA_LLVMPIPE
  d.driver_name = "llvmpipe";
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 4;
  d.compute_required_subgroup_size = true;
  d.max_compute_workgroup_subgroups = 32;
  d.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "quad"};
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {1024, 1024, 1024};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 32768;
  d.max_storage_buffer_range = 134217728;
  d.max_push_constants_bytes = 128;
  d.min_storage_buffer_offset_alignment = 16;
  d.max_memory_allocation_bytes = std::uint64_t{2} << 30;
  d.timestamp_period_ns = 1.0;
  d.timestamp_valid_bits = 64;
  d.features.storage_buffer_16bit = true;
  d.features.storage_buffer_8bit = true;
  d.features.shader_float16 = true;
  d.features.shader_int8 = true;
  d.features.shader_int16 = true;
  d.features.shader_int64 = true;
  d.features.integer_dot_product = true;
  d.features.subgroup_size_control = true;
  d.features.compute_full_subgroups = true;
  d.features.vulkan_memory_model = true;
  d.memory_heaps = {{std::uint64_t{2} << 30, true}};
  return d;
}

// No real device: the least a conformant Vulkan 1.3 implementation may
// report (the specification's required limits and features), for the
// question whether every kernel runs something legal there or says why not:
//   - subgroupSize 1 (its minimum), minSubgroupSize = maxSubgroupSize = 1;
//     compute in supportedStages and basic in supportedOperations, nothing
//     more; subgroupSizeControl and computeFullSubgroups (required by 1.3),
//     maxComputeWorkgroupSubgroups 128;
//   - maxComputeSharedMemorySize 16384, maxComputeWorkGroupInvocations 128,
//     maxComputeWorkGroupSize 128×128×64, maxComputeWorkGroupCount
//     65535×65535×65535, maxPushConstantsSize 128, maxStorageBufferRange 2^27,
//     minStorageBufferOffsetAlignment 256, maxMemoryAllocationSize 2^30;
//   - shaderIntegerDotProduct and vulkanMemoryModel (required by 1.3); no
//     8- or 16-bit storage, no fp16 or int8 arithmetic, no int16 or int64,
//     no cooperative matrix;
//   - no timestamps (timestampValidBits 0 is allowed).
inline vk::DeviceInfo vulkan_1_3_minimum() {
  vk::DeviceInfo d;
  d.name = "Vulkan 1.3 minimum";
  d.device_type = "other";
  d.vendor_id = 0;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 1;
  d.compute_required_subgroup_size = true;
  d.max_compute_workgroup_subgroups = 128;
  d.subgroup_operations = {"basic"};
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {128, 128, 64};
  d.max_workgroup_invocations = 128;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 16384;
  d.max_storage_buffer_range = 134217728;
  d.max_push_constants_bytes = 128;
  d.min_storage_buffer_offset_alignment = 256;
  d.max_memory_allocation_bytes = std::uint64_t{1} << 30;
  d.features.integer_dot_product = true;
  d.features.subgroup_size_control = true;
  d.features.compute_full_subgroups = true;
  d.features.vulkan_memory_model = true;
  d.memory_heaps = {{std::uint64_t{1} << 30, true}};
  return d;
}

// Every device above, for suites that run over all of them.
inline std::vector<vk::DeviceInfo> other_vendor_devices() {
  return {radeon_rx_7900_xtx(), arc_a770(), mali_g715(), lavapipe_128_bit()};
}

}  // namespace vktune::testing_support
