#pragma once
// Images a kernel binds instead of a buffer (harness/image_binding.hpp): a
// VkImage in device-local memory with optimal tiling, its view, and for a
// sampled image a sampler (nearest filtering, one level, clamped to the
// edge, normalized coordinates: a 3-D view allows no others, and
// texelFetch ignores them). Data moves in and
// out through a buffer (the staging bytes a DeviceProblem already guards
// and poisons): copy_from() uploads with vkCmdCopyBufferToImage, copy_to()
// reads back with vkCmdCopyImageToBuffer, each with the layout transitions
// and barriers around it, so that a dispatch recorded later sees the
// texels and a read after a dispatch sees what it wrote.
//
// Layouts: a storage image lives in GENERAL (what imageLoad/imageStore
// need); a sampled image in SHADER_READ_ONLY_OPTIMAL.
#include <volk.h>

#include "harness/buffer.hpp"
#include "harness/device.hpp"
#include "harness/image_binding.hpp"

namespace vktune::vk {

VkFormat vk_format(ImageFormat format);

class Image {
 public:
  // Throws Error(device_limit) where the device cannot make it (format
  // features, extent, memory): legality should have kept such a variant out.
  Image(Device& device, const ImageBinding& binding);
  ~Image();
  Image(Image&& other) noexcept;
  Image& operator=(Image&&) = delete;
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  const ImageBinding& binding() const { return binding_; }
  VkImageView view() const { return view_; }
  VkSampler sampler() const { return sampler_; }  // VK_NULL_HANDLE for a storage image
  VkImageLayout layout() const;  // the layout it is kept in between copies
  // The bytes of every texel, tightly packed (x fastest, then y, then z).
  VkDeviceSize bytes() const;

  // Every texel from `source` at `offset` (bytes() of them, tightly packed).
  void copy_from(const Buffer& source, VkDeviceSize offset);
  // Every texel to `target` at `offset`.
  void copy_to(const Buffer& target, VkDeviceSize offset) const;

 private:
  Device* device_;
  ImageBinding binding_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkSampler sampler_ = VK_NULL_HANDLE;
  bool initialized_ = false;  // still in UNDEFINED until the first copy
};

}  // namespace vktune::vk
