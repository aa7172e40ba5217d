#include "harness/image.hpp"

#include <utility>

#include "common/error.hpp"
#include "harness/commands.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

VkFormat vk_format(ImageFormat format) {
  return format == ImageFormat::rgba32f ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R16G16B16A16_SFLOAT;
}

namespace {

// Everything a dispatch or a copy of an earlier submission may have done to
// memory, made visible to this one's transfers (vkCmdFillBuffer poisons the
// staging bytes in a submission of its own).
void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
             VkAccessFlags dst_access, VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage) {
  VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  memory.srcAccessMask = src_access;
  memory.dstAccessMask = dst_access;
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &memory, 0, nullptr, 1, &b);
}

constexpr VkAccessFlags kAnyAccess = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;

}  // namespace

Image::Image(Device& device, const ImageBinding& binding) : device_(&device), binding_(binding) {
  const VkFormat format = vk_format(binding.format);
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(device.physical(), format, &properties);
  const VkFormatFeatureFlags need =
      (binding.kind == ImageKind::storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) |
      VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if ((properties.optimalTilingFeatures & need) != need) {
    throw Error(ErrorKind::device_limit, device.info().name + " cannot make " + describe(binding) +
                                             " (format features for optimal tiling)");
  }
  VkImageCreateInfo create{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  create.imageType = binding.dims == 3 ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
  create.format = format;
  create.extent = {binding.extent[0], binding.extent[1], binding.dims == 3 ? binding.extent[2] : 1};
  create.mipLevels = 1;
  create.arrayLayers = 1;
  create.samples = VK_SAMPLE_COUNT_1_BIT;
  create.tiling = VK_IMAGE_TILING_OPTIMAL;
  create.usage = (binding.kind == ImageKind::storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT) |
                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  create.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageFormatProperties limits{};
  if (vkGetPhysicalDeviceImageFormatProperties(device.physical(), format, create.imageType, create.tiling, create.usage,
                                               0, &limits) != VK_SUCCESS ||
      limits.maxExtent.width < create.extent.width || limits.maxExtent.height < create.extent.height ||
      limits.maxExtent.depth < create.extent.depth) {
    throw Error(ErrorKind::device_limit, device.info().name + " cannot make " + describe(binding) + " of " +
                                             std::to_string(create.extent.width) + "x" +
                                             std::to_string(create.extent.height) + "x" +
                                             std::to_string(create.extent.depth) + " texels");
  }
  const VkDevice dev = device.handle();
  try {
    check(vkCreateImage(dev, &create, nullptr, &image_), "vkCreateImage");
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(dev, image_, &requirements);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = requirements.size;
    alloc.memoryTypeIndex = device.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    const VkResult result = vkAllocateMemory(dev, &alloc, nullptr, &memory_);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
      throw Error(ErrorKind::device_limit, "out of memory allocating " + describe(binding) + " on " + device.info().name);
    }
    check(result, "vkAllocateMemory");
    check(vkBindImageMemory(dev, image_, memory_, 0), "vkBindImageMemory");
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = image_;
    view.viewType = binding.dims == 3 ? VK_IMAGE_VIEW_TYPE_3D : VK_IMAGE_VIEW_TYPE_2D;
    view.format = format;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    check(vkCreateImageView(dev, &view, nullptr, &view_), "vkCreateImageView");
    if (binding.kind == ImageKind::sampled) {
      // Nearest, one level, clamped: a texel read is that texel, never a blend.
      // Normalized coordinates: unnormalized ones are not allowed with a 3-D
      // view, and texelFetch ignores the sampler's coordinates anyway.
      VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
      sampler.magFilter = VK_FILTER_NEAREST;
      sampler.minFilter = VK_FILTER_NEAREST;
      sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
      sampler.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
      sampler.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
      sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
      sampler.maxLod = 0.0f;
      check(vkCreateSampler(dev, &sampler, nullptr, &sampler_), "vkCreateSampler");
    }
  } catch (...) {
    if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
    if (view_) vkDestroyImageView(dev, view_, nullptr);
    if (image_) vkDestroyImage(dev, image_, nullptr);
    if (memory_) vkFreeMemory(dev, memory_, nullptr);
    throw;
  }
}

Image::Image(Image&& other) noexcept
    : device_(other.device_),
      binding_(other.binding_),
      image_(std::exchange(other.image_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      view_(std::exchange(other.view_, VK_NULL_HANDLE)),
      sampler_(std::exchange(other.sampler_, VK_NULL_HANDLE)),
      initialized_(other.initialized_) {}

Image::~Image() {
  if (!device_->usable()) return;
  const VkDevice dev = device_->handle();
  if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
  if (view_) vkDestroyImageView(dev, view_, nullptr);
  if (image_) vkDestroyImage(dev, image_, nullptr);
  if (memory_) vkFreeMemory(dev, memory_, nullptr);
}

VkImageLayout Image::layout() const {
  return binding_.kind == ImageKind::storage ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
}

VkDeviceSize Image::bytes() const {
  return VkDeviceSize{binding_.extent[0]} * binding_.extent[1] * (binding_.dims == 3 ? binding_.extent[2] : 1) *
         texel_bytes(binding_.format);
}

namespace {

VkBufferImageCopy whole_image(const ImageBinding& b, VkDeviceSize offset) {
  VkBufferImageCopy region{};
  region.bufferOffset = offset;
  region.bufferRowLength = 0;  // tightly packed
  region.bufferImageHeight = 0;
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {b.extent[0], b.extent[1], b.dims == 3 ? b.extent[2] : 1};
  return region;
}

}  // namespace

void Image::copy_from(const Buffer& source, VkDeviceSize offset) {
  const auto region = whole_image(binding_, offset);
  const VkImageLayout from = initialized_ ? layout() : VK_IMAGE_LAYOUT_UNDEFINED;
  run_commands(*device_, [&](VkCommandBuffer cmd) {
    barrier(cmd, image_, from, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, kAnyAccess, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyBufferToImage(cmd, source.handle(), image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    barrier(cmd, image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout(), VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
  });
  initialized_ = true;
}

void Image::copy_to(const Buffer& target, VkDeviceSize offset) const {
  const auto region = whole_image(binding_, offset);
  run_commands(*device_, [&](VkCommandBuffer cmd) {
    barrier(cmd, image_, layout(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, kAnyAccess, VK_ACCESS_TRANSFER_READ_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(cmd, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target.handle(), 1, &region);
    barrier(cmd, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout(), VK_ACCESS_TRANSFER_WRITE_BIT, kAnyAccess,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT);
  });
}

}  // namespace vktune::vk
