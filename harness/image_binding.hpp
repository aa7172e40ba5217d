#pragma once
// A binding that is an image rather than a buffer (a spec's "image" field):
// what the pipeline's layout declares for it (a storage image, or a combined
// image sampler), and what the device must make of it (its format and
// extent). Plain data, free of Vulkan's headers, so that kernels can plan
// images and a device's legality can be decided without them; harness/image.hpp
// makes the VkImage.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace vktune::vk {

// The formats a spec's image may take: four channels, the channels-packed
// layout's texel (harness/image.hpp maps each to its VkFormat).
enum class ImageFormat { rgba32f, rgba16f };

enum class ImageKind {
  storage,  // VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: imageLoad / imageStore, layout GENERAL
  sampled,  // VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: texelFetch / texture, nearest
};

struct ImageBinding {
  std::uint32_t binding = 0;
  ImageKind kind = ImageKind::storage;
  std::uint32_t dims = 3;  // 2 or 3: image2D / image3D, sampler2D / sampler3D
  ImageFormat format = ImageFormat::rgba32f;
  std::array<std::uint32_t, 3> extent{1, 1, 1};  // width, height, depth (1 for 2-D)
  bool operator==(const ImageBinding&) const = default;
};

// "rgba32f", "rgba16f": GLSL's layout qualifiers, as a spec writes them.
const char* format_name(ImageFormat format);
std::optional<ImageFormat> format_from_name(const std::string& name);
// Bytes of one texel: 16 for rgba32f, 8 for rgba16f.
std::uint32_t texel_bytes(ImageFormat format);
// "storage image", "sampled image": as shader_interface.hpp names the kinds.
const char* image_kind_name(ImageKind kind);
// "a 3-D storage image of rgba32f", for messages.
std::string describe(const ImageBinding& image);

}  // namespace vktune::vk
