#include "harness/image_binding.hpp"

namespace vktune::vk {

const char* format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::rgba32f: return "rgba32f";
    case ImageFormat::rgba16f: return "rgba16f";
  }
  return "?";
}

std::optional<ImageFormat> format_from_name(const std::string& name) {
  if (name == "rgba32f") return ImageFormat::rgba32f;
  if (name == "rgba16f") return ImageFormat::rgba16f;
  return std::nullopt;
}

std::uint32_t texel_bytes(ImageFormat format) { return format == ImageFormat::rgba32f ? 16 : 8; }

const char* image_kind_name(ImageKind kind) { return kind == ImageKind::storage ? "storage image" : "sampled image"; }

std::string describe(const ImageBinding& image) {
  return std::string("a ") + std::to_string(image.dims) + "-D " + image_kind_name(image.kind) + " of " + format_name(image.format);
}

}  // namespace vktune::vk
