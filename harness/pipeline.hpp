#pragma once
// Compute pipelines from SPIR-V: storage (or uniform) buffers or images at set 0, bindings 0..n-1,
// optional push constants, specialization constants, and a required subgroup
// size where the device allows one. A module instrumented for bounds checks
// (harness/bounds_instrumentation.hpp) also binds set kBoundsSet.
#include <volk.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/violation.hpp"
#include "harness/buffer.hpp"
#include "harness/limit_rules.hpp"
#include "harness/device.hpp"
#include "harness/image.hpp"
#include "harness/pipeline_statistics.hpp"

namespace vktune::vk {

struct PipelineDesc {
  std::string label;                      // names the variant in error messages
  std::uint32_t storage_buffers = 0;      // bindings 0..n-1 of set 0 (storage buffers but those below)
  // (binding, block bytes) of the bindings that are uniform buffers, sorted
  // by binding; each is bound for exactly its block's bytes, which keeps the
  // range within maxUniformBufferRange whatever guard band follows the data.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> uniform_buffers;
  // The bindings that are images (a storage image, or a combined image
  // sampler), sorted by binding; make_descriptor_set binds an Image there.
  std::vector<ImageBinding> images;
  std::uint32_t push_constant_bytes = 0;  // 0 = none
  // constant_id -> a parameter's integer value (32-bit two's complement):
  // the pipeline delivers it in the type the module declares (a float's
  // bits, a bool's 0/1) and refuses one that type cannot hold
  // (harness/specialization_values.hpp).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> specialization;
  // The local size the shader declares; checked against device limits before
  // the driver sees it (an over-large workgroup can crash some drivers).
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  std::uint32_t required_subgroup_size = 0;  // 0 = let the driver choose
  bool require_full_subgroups = false;
  std::uint32_t max_descriptor_sets = 16;  // how many make_descriptor_set calls
  // A VkPipelineCache's data to create the pipeline from: what an isolated
  // worker process returned after creating the same pipeline (a cache hit
  // then spares the driver the compile). Data the driver does not accept
  // (another device or driver) is ignored by it, by the specification.
  std::vector<std::uint8_t> cache_data;
  // Keep the pipeline cache's data after creation (cache_data() returns it).
  bool export_cache = false;
  // Ask the driver for what it made of the pipeline (statistics() returns
  // it) where the device offers that; ignored elsewhere.
  bool capture_statistics = false;
  // The module is bounds-instrumented: the layout adds set kBoundsSet (its
  // output and input buffers), bound with make_bounds_set().
  bool bounds_set = false;
};

class ComputePipeline {
 public:
  // Throws Error(device_limit) for a local size or subgroup request the device
  // cannot honour, Error(pipeline) when the driver rejects the pipeline.
  ComputePipeline(Device& device, std::span<const std::uint32_t> spirv, const PipelineDesc& desc);
  ~ComputePipeline();
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  const PipelineDesc& desc() const { return desc_; }
  // With desc.export_cache: the data of the pipeline cache it was created
  // with, to create the same pipeline in another process.
  const std::vector<std::uint8_t>& cache_data() const { return cache_data_; }
  // With desc.capture_statistics on a device that offers them: the driver's
  // statistics of the pipeline (harness/pipeline_statistics.hpp); else empty.
  const std::vector<PipelineStatistic>& statistics() const { return statistics_; }

  // A descriptor set binding `buffers` in order; lives as long as the pipeline.
  // Binds each buffer from `offset` (a multiple of minStorageBufferOffsetAlignment) to its end.
  VkDescriptorSet make_descriptor_set(std::span<const Buffer* const> buffers, VkDeviceSize offset = 0);
  // The same with an offset per buffer (each a multiple of that alignment).
  VkDescriptorSet make_descriptor_set(std::span<const Buffer* const> buffers, std::span<const VkDeviceSize> offsets);
  // The same where some bindings are images (desc.images): images[b] is
  // bound at each such binding b (its buffer is not), nullptr elsewhere.
  VkDescriptorSet make_descriptor_set(std::span<const Buffer* const> buffers, std::span<const VkDeviceSize> offsets,
                                      std::span<const Image* const> images);

  // With desc.bounds_set: the set of an instrumented module's output and
  // input buffers (each bound whole); lives as long as the pipeline.
  VkDescriptorSet make_bounds_set(const Buffer& output, const Buffer& input);

  // Records bind + push constants + dispatch; `bounds` is bound at
  // kBoundsSet when the pipeline has that set.
  void record_dispatch(VkCommandBuffer cmd, VkDescriptorSet set, std::array<std::uint32_t, 3> groups,
                       std::span<const std::uint8_t> push_constants = {},
                       VkDescriptorSet bounds = VK_NULL_HANDLE) const;

 private:
  void release();  // destroys what exists; safe on a half-built pipeline
  // A set of `layout` from the pool with infos[i] at binding i.
  // An image binding takes image_infos[i] instead (image_infos empty: none).
  VkDescriptorSet write_set(VkDescriptorSetLayout layout, std::span<const VkDescriptorBufferInfo> infos,
                            std::span<const VkDescriptorType> types,
                            std::span<const VkDescriptorImageInfo> image_infos = {});
  // The descriptor type of binding `binding` of set 0.
  VkDescriptorType binding_type(std::uint32_t binding) const;
  Device* device_;
  PipelineDesc desc_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout bounds_layout_ = VK_NULL_HANDLE;  // with desc.bounds_set
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<std::uint8_t> cache_data_;
  std::vector<PipelineStatistic> statistics_;
};

// Checks local size and subgroup requests against the device; returns no
// violation when fine, else the rule (vk::limits, harness/limit_rules.hpp)
// and the reason. Kernels call it as a constraint.
Violation check_pipeline_limits(const DeviceInfo& info, const PipelineDesc& desc);

}  // namespace vktune::vk
