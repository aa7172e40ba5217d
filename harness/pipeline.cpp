#include "harness/pipeline.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "harness/bounds_instrumentation.hpp"
#include "harness/shader_interface.hpp"
#include "harness/specialization_values.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

Violation check_pipeline_limits(const DeviceInfo& info, const PipelineDesc& desc) {
  const auto& ls = desc.local_size;
  std::uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    if (ls[i] == 0) return limits::kWorkgroupSize("local size has a zero dimension");
    if (ls[i] > info.max_workgroup_size[i]) {
      return limits::kWorkgroupSize("local size " + std::to_string(ls[i]) + " in dimension " + std::to_string(i) +
                                    " exceeds the device's maxComputeWorkGroupSize of " +
                                    std::to_string(info.max_workgroup_size[i]));
    }
    invocations *= ls[i];
  }
  if (invocations > info.max_workgroup_invocations) {
    return limits::kWorkgroupInvocations("workgroup of " + std::to_string(invocations) +
                                         " invocations exceeds maxComputeWorkGroupInvocations of " +
                                         std::to_string(info.max_workgroup_invocations));
  }
  if (desc.required_subgroup_size != 0) {
    const auto size = desc.required_subgroup_size;
    if (!info.features.subgroup_size_control || !info.compute_required_subgroup_size) {
      return limits::kSubgroupRequest("subgroup size " + std::to_string(size) + " was requested but " + info.name +
                                      " does not allow requiring a subgroup size for compute shaders");
    }
    if (!info.supports_required_subgroup_size(size)) {
      return limits::kSubgroupRange("subgroup size " + std::to_string(size) + " is outside " + info.name + "'s range " +
                                    std::to_string(info.min_subgroup_size) + ".." +
                                    std::to_string(info.max_subgroup_size) + " (or not a power of two)");
    }
    if (info.max_compute_workgroup_subgroups && invocations > std::uint64_t{size} * info.max_compute_workgroup_subgroups) {
      return limits::kSubgroupsPerWorkgroup("workgroup of " + std::to_string(invocations) +
                                            " invocations needs more than maxComputeWorkgroupSubgroups (" +
                                            std::to_string(info.max_compute_workgroup_subgroups) + ") subgroups of " +
                                            std::to_string(size));
    }
  }
  if (desc.require_full_subgroups) {
    if (!info.features.compute_full_subgroups) {
      return limits::kFullSubgroups(info.name + " does not support computeFullSubgroups");
    }
    const auto size = desc.required_subgroup_size ? desc.required_subgroup_size : info.max_subgroup_size;
    if (size == 0 || ls[0] % size != 0) {
      return limits::kFullSubgroups("full subgroups need local_size_x (" + std::to_string(ls[0]) +
                                    ") to be a multiple of the subgroup size " + std::to_string(size));
    }
  }
  if (desc.push_constant_bytes > info.max_push_constants_bytes) {
    return limits::kPushConstants(std::to_string(desc.push_constant_bytes) +
                                  " bytes of push constants exceed the device's " +
                                  std::to_string(info.max_push_constants_bytes));
  }
  return {};
}

ComputePipeline::ComputePipeline(Device& device, std::span<const std::uint32_t> spirv, const PipelineDesc& desc)
    : device_(&device), desc_(desc) {
  if (auto problem = check_pipeline_limits(device.info(), desc); !problem.empty()) {
    throw Error(ErrorKind::device_limit, desc.label.empty() ? problem.detail : desc.label + ": " + problem.detail);
  }
  const VkDevice dev = device.handle();
  auto fail = [&](VkResult result, const char* what) {
    if (result == VK_SUCCESS) return;
    if (result == VK_ERROR_DEVICE_LOST) check(result, what);
    throw Error(ErrorKind::pipeline, (desc.label.empty() ? std::string() : desc.label + ": ") + what + " failed: " +
                                         describe(result));
  };
  // Members are released by the destructor even when a later step throws,
  // so construction happens in a guard that destroys what exists.
  // The layout below must serve what the module uses: a binding it lacks
  // or push constants too short are undefined behaviour that drivers answer
  // with a crash, so they are refused here, named (harness/shader_interface.hpp).
  // A module SPIRV-Cross cannot read goes to the driver unchecked.
  std::string unread;
  auto specialization = desc.specialization;
  if (const auto interface = reflect_interface(spirv, unread)) {
    auto mismatch =
        interface_mismatch(*interface, desc.storage_buffers, desc.uniform_buffers, desc.images, desc.push_constant_bytes,
                           desc.bounds_set);
    // Each parameter value in the type its constant is declared with.
    if (mismatch.empty()) mismatch = typed_specialization(*interface, specialization);
    if (!mismatch.empty()) throw Error(ErrorKind::pipeline, desc.label.empty() ? mismatch : desc.label + ": " + mismatch);
  }
  try {
    VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module_info.codeSize = spirv.size_bytes();
    module_info.pCode = spirv.data();
    fail(vkCreateShaderModule(dev, &module_info, nullptr, &module_), "vkCreateShaderModule");

    std::vector<VkDescriptorSetLayoutBinding> bindings(desc.storage_buffers);
    for (std::uint32_t i = 0; i < desc.storage_buffers; ++i) {
      bindings[i] = {i, binding_type(i), 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = desc.storage_buffers;
    set_info.pBindings = bindings.data();
    fail(vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
    std::vector<VkDescriptorSetLayout> set_layouts{set_layout_};
    if (desc.bounds_set) {
      static_assert(kBoundsSet == 1, "the bounds set follows set 0 directly");
      const std::array<VkDescriptorSetLayoutBinding, 2> debug{
          VkDescriptorSetLayoutBinding{kBoundsOutputBinding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                       VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
          VkDescriptorSetLayoutBinding{kBoundsInputBinding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                       VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
      VkDescriptorSetLayoutCreateInfo debug_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      debug_info.bindingCount = static_cast<std::uint32_t>(debug.size());
      debug_info.pBindings = debug.data();
      fail(vkCreateDescriptorSetLayout(dev, &debug_info, nullptr, &bounds_layout_), "vkCreateDescriptorSetLayout");
      set_layouts.push_back(bounds_layout_);
    }

    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_constant_bytes};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = static_cast<std::uint32_t>(set_layouts.size());
    layout_info.pSetLayouts = set_layouts.data();
    layout_info.pushConstantRangeCount = desc.push_constant_bytes ? 1 : 0;
    layout_info.pPushConstantRanges = &push;
    fail(vkCreatePipelineLayout(dev, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");

    std::vector<VkSpecializationMapEntry> entries;
    std::vector<std::uint32_t> values;
    for (const auto& [id, value] : specialization) {
      entries.push_back({id, static_cast<std::uint32_t>(values.size() * sizeof(std::uint32_t)), sizeof(std::uint32_t)});
      values.push_back(value);
    }
    VkSpecializationInfo spec{static_cast<std::uint32_t>(entries.size()), entries.data(),
                              values.size() * sizeof(std::uint32_t), values.data()};

    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    subgroup.requiredSubgroupSize = desc.required_subgroup_size;

    VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module_;
    pipeline_info.stage.pName = "main";
    pipeline_info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
    if (desc.required_subgroup_size) pipeline_info.stage.pNext = &subgroup;
    if (desc.require_full_subgroups) pipeline_info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    pipeline_info.layout = layout_;
    const bool capture = desc.capture_statistics && device.info().features.pipeline_executable_info;
    if (capture) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    // A cache only when there is data to start from or to hand on: a cache
    // of its own per pipeline, so that nothing else is in the data.
    VkPipelineCache cache = VK_NULL_HANDLE;
    if (!desc.cache_data.empty() || desc.export_cache) {
      VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
      cache_info.initialDataSize = desc.cache_data.size();
      cache_info.pInitialData = desc.cache_data.empty() ? nullptr : desc.cache_data.data();
      fail(vkCreatePipelineCache(dev, &cache_info, nullptr, &cache), "vkCreatePipelineCache");
    }
    const VkResult created = vkCreateComputePipelines(dev, cache, 1, &pipeline_info, nullptr, &pipeline_);
    if (created == VK_SUCCESS && desc.export_cache) {
      std::size_t size = 0;
      if (vkGetPipelineCacheData(dev, cache, &size, nullptr) == VK_SUCCESS && size > 0) {
        cache_data_.resize(size);
        if (vkGetPipelineCacheData(dev, cache, &size, cache_data_.data()) != VK_SUCCESS) cache_data_.clear();
        cache_data_.resize(std::min(size, cache_data_.size()));
      }
    }
    if (cache) vkDestroyPipelineCache(dev, cache, nullptr);
    fail(created, "vkCreateComputePipelines");
    if (capture) statistics_ = read_pipeline_statistics(device, pipeline_);

    // A bounds set beside each kernel set at most (one per problem bound).
    const std::uint32_t sets = desc.max_descriptor_sets * (desc.bounds_set ? 2 : 1);
    const auto uniforms = static_cast<std::uint32_t>(desc.uniform_buffers.size());
    std::uint32_t storage_images = 0, sampled_images = 0;
    for (const auto& image : desc.images) ++(image.kind == ImageKind::storage ? storage_images : sampled_images);
    const std::uint32_t others = uniforms + storage_images + sampled_images;
    std::vector<VkDescriptorPoolSize> pool_sizes{
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         (std::max(1u, desc.storage_buffers - std::min(others, desc.storage_buffers)) + (desc.bounds_set ? 2 : 0)) *
             desc.max_descriptor_sets}};
    if (uniforms > 0) pool_sizes.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, uniforms * desc.max_descriptor_sets});
    if (storage_images > 0) {
      pool_sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, storage_images * desc.max_descriptor_sets});
    }
    if (sampled_images > 0) {
      pool_sizes.push_back({VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sampled_images * desc.max_descriptor_sets});
    }
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = sets;
    pool_info.poolSizeCount = static_cast<std::uint32_t>(pool_sizes.size());
    pool_info.pPoolSizes = pool_sizes.data();
    fail(vkCreateDescriptorPool(dev, &pool_info, nullptr, &pool_), "vkCreateDescriptorPool");
    desc_.cache_data = {};  // used; a kept pipeline need not hold it
  } catch (...) {
    release();
    throw;
  }
}

ComputePipeline::~ComputePipeline() { release(); }

void ComputePipeline::release() {
  if (!device_->usable()) return;
  const VkDevice dev = device_->handle();
  if (pool_) vkDestroyDescriptorPool(dev, std::exchange(pool_, VK_NULL_HANDLE), nullptr);
  if (pipeline_) vkDestroyPipeline(dev, std::exchange(pipeline_, VK_NULL_HANDLE), nullptr);
  if (layout_) vkDestroyPipelineLayout(dev, std::exchange(layout_, VK_NULL_HANDLE), nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(dev, std::exchange(set_layout_, VK_NULL_HANDLE), nullptr);
  if (bounds_layout_) vkDestroyDescriptorSetLayout(dev, std::exchange(bounds_layout_, VK_NULL_HANDLE), nullptr);
  if (module_) vkDestroyShaderModule(dev, std::exchange(module_, VK_NULL_HANDLE), nullptr);
}

VkDescriptorType ComputePipeline::binding_type(std::uint32_t binding) const {
  for (const auto& image : desc_.images) {
    if (image.binding != binding) continue;
    return image.kind == ImageKind::storage ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  }
  for (const auto& [b, bytes] : desc_.uniform_buffers)
    if (b == binding) return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

VkDescriptorSet ComputePipeline::write_set(VkDescriptorSetLayout layout, std::span<const VkDescriptorBufferInfo> infos,
                                           std::span<const VkDescriptorType> types,
                                           std::span<const VkDescriptorImageInfo> image_infos) {
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(device_->handle(), &alloc, &set), "vkAllocateDescriptorSets");
  std::vector<VkWriteDescriptorSet> writes(infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<std::uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = types[i];
    const bool image = types[i] == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || types[i] == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    if (image) {
      writes[i].pImageInfo = &image_infos[i];
    } else {
      writes[i].pBufferInfo = &infos[i];
    }
  }
  vkUpdateDescriptorSets(device_->handle(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return set;
}

VkDescriptorSet ComputePipeline::make_descriptor_set(std::span<const Buffer* const> buffers, VkDeviceSize offset) {
  return make_descriptor_set(buffers, std::vector<VkDeviceSize>(buffers.size(), offset));
}

VkDescriptorSet ComputePipeline::make_descriptor_set(std::span<const Buffer* const> buffers,
                                                     std::span<const VkDeviceSize> offsets) {
  return make_descriptor_set(buffers, offsets, {});
}

VkDescriptorSet ComputePipeline::make_descriptor_set(std::span<const Buffer* const> buffers,
                                                     std::span<const VkDeviceSize> offsets,
                                                     std::span<const Image* const> images) {
  if (buffers.size() != desc_.storage_buffers || offsets.size() != buffers.size()) {
    throw Error(ErrorKind::internal, desc_.label + ": " + std::to_string(buffers.size()) + " buffers and " +
                                         std::to_string(offsets.size()) + " offsets given for " +
                                         std::to_string(desc_.storage_buffers) + " bindings");
  }
  std::vector<VkDescriptorBufferInfo> infos;
  std::vector<VkDescriptorType> types;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    infos.push_back({buffers[b]->handle(), offsets[b], VK_WHOLE_SIZE});
    types.push_back(binding_type(static_cast<std::uint32_t>(b)));
    // A uniform buffer's range may not pass maxUniformBufferRange: its block
    // only (a spec's are 16 KiB at most), not the guard band after it.
    for (const auto& [binding, bytes] : desc_.uniform_buffers)
      if (binding == b) infos.back().range = std::min<VkDeviceSize>(bytes, buffers[b]->size() - offsets[b]);
  }
  if (desc_.images.empty()) return write_set(set_layout_, infos, types);
  std::vector<VkDescriptorImageInfo> image_infos(buffers.size());
  for (const auto& slot : desc_.images) {
    const Image* image = slot.binding < images.size() ? images[slot.binding] : nullptr;
    if (!image || image->binding().kind != slot.kind) {
      throw Error(ErrorKind::internal, desc_.label + ": binding " + std::to_string(slot.binding) + " needs " +
                                           describe(slot) + ", and none was given");
    }
    image_infos[slot.binding] = {image->sampler(), image->view(), image->layout()};
  }
  return write_set(set_layout_, infos, types, image_infos);
}

VkDescriptorSet ComputePipeline::make_bounds_set(const Buffer& output, const Buffer& input) {
  if (!bounds_layout_) throw Error(ErrorKind::internal, desc_.label + ": a bounds set for a pipeline without one");
  static_assert(kBoundsOutputBinding == 0 && kBoundsInputBinding == 1, "write_set binds in order");
  const std::array<VkDescriptorBufferInfo, 2> infos{VkDescriptorBufferInfo{output.handle(), 0, VK_WHOLE_SIZE},
                                                    VkDescriptorBufferInfo{input.handle(), 0, VK_WHOLE_SIZE}};
  const std::array<VkDescriptorType, 2> types{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
  return write_set(bounds_layout_, infos, types);
}

void ComputePipeline::record_dispatch(VkCommandBuffer cmd, VkDescriptorSet set, std::array<std::uint32_t, 3> groups,
                                      std::span<const std::uint8_t> push_constants, VkDescriptorSet bounds) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  if (bounds_layout_) {
    if (!bounds) throw Error(ErrorKind::internal, desc_.label + ": an instrumented pipeline needs its bounds set");
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, kBoundsSet, 1, &bounds, 0, nullptr);
  }
  if (!push_constants.empty()) {
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<std::uint32_t>(push_constants.size()),
                       push_constants.data());
  }
  vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
}

}  // namespace vktune::vk
