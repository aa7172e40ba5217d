#include "kernels/spec/spec_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"

namespace vktune::kernels::spec {

std::shared_ptr<const ImageSpec> read_image(const Node& node, const Scope& dims, BindingRole role) {
  node.only({"kind", "dims", "format", "layout", "tensor", "padding"});
  auto image = std::make_shared<ImageSpec>();
  image->pointer = node.pointer();
  const auto kind_node = node.at("kind");
  const auto kind = kind_node.string();
  if (kind == "storage") image->kind = vk::ImageKind::storage;
  else if (kind == "sampled") image->kind = vk::ImageKind::sampled;
  else kind_node.fail("unknown image kind '" + kind + "' (storage, sampled)");
  if (role != BindingRole::input && role != BindingRole::weights && role != BindingRole::output) {
    node.fail("an image is an input, weights or the output (scratch and uniform data are buffers)");
  }
  if (role == BindingRole::output && image->kind == vk::ImageKind::sampled) {
    kind_node.fail("a sampled image is read only: the output is a storage image");
  }
  if (node.has("dims")) image->dims = static_cast<std::uint32_t>(node.at("dims").integer(2, 3));
  const auto format_node = node.at("format");
  const auto format = vk::format_from_name(format_node.string());
  if (!format) format_node.fail("unknown image format '" + format_node.string() + "' (rgba32f, rgba16f)");
  image->format = *format;
  if (node.has("layout") && node.at("layout").string() != "channels_packed") {
    node.at("layout").fail("unknown layout '" + node.at("layout").string() + "' (channels_packed)");
  }
  const auto tensor = node.at("tensor").array(3);
  if (tensor.size() > 4) node.at("tensor").fail("a tensor is [C, H, W] or [N, C, H, W]");
  for (const auto& extent : tensor) image->tensor.push_back(extent.expression(dims));
  if (node.has("padding")) {
    const auto padding = node.at("padding");
    if (role != BindingRole::output) padding.fail("only an output's padding is checked (an input's is zero)");
    const auto value = padding.string();
    if (value == "any") image->padding_any = true;
    else if (value != "zero") padding.fail("unknown padding '" + value + "' (zero, any)");
  }
  return image;
}

std::string image_elements_text(const ImageSpec& image) {
  std::string text;
  for (const auto& extent : image.tensor) text += (text.empty() ? "(" : " * (") + extent.text() + ")";
  return text;
}

PackedExtents packed_extents(const Definition& d, const BufferSpec& b, const Shape& shape) {
  const auto& image = *b.image;
  std::vector<double> values(d.full_scope.size(), 0.0);
  for (std::size_t i = 0; i < shape.size() && i < values.size(); ++i) values[i] = shape[i];
  std::vector<std::uint64_t> extents;
  for (std::size_t i = 0; i < image.tensor.size(); ++i) {
    const double v = image.tensor[i].evaluate(values.data());
    if (!std::isfinite(v) || v < 1 || v != std::floor(v) || v >= 2147483648.0) {
      throw Error(ErrorKind::usage, d.file + ": " + image.pointer + "/tensor/" + std::to_string(i) + ": '" +
                                        image.tensor[i].text() + "' is not a whole number of at least 1 at shape " +
                                        shape_text(shape));
    }
    extents.push_back(static_cast<std::uint64_t>(v));
  }
  PackedExtents e;
  if (extents.size() == 4) e.n = extents[0];
  const std::size_t o = extents.size() - 3;
  e.c = extents[o], e.h = extents[o + 1], e.w = extents[o + 2];
  if (image.dims == 2 && e.depth() != 1) {
    throw Error(ErrorKind::usage, d.file + ": " + image.pointer + "/tensor: a 2-D image holds one image of at most 4 channels, but shape " +
                                      shape_text(shape) + " gives " + std::to_string(e.n) + " of " + std::to_string(e.c) +
                                      " (use \"dims\": 3)");
  }
  return e;
}

vk::ImageBinding image_binding(const Definition& d, const BufferSpec& b, const Shape& shape) {
  const auto e = packed_extents(d, b, shape);
  vk::ImageBinding binding;
  binding.binding = b.binding;
  binding.kind = b.image->kind;
  binding.dims = b.image->dims;
  binding.format = b.image->format;
  // Saturated: an extent past 32 bits is refused by image_violation, not wrapped.
  const auto clamp = [](std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 0xffffffffu)); };
  binding.extent = {clamp(e.w), clamp(e.h), clamp(e.depth())};
  return binding;
}

std::vector<vk::ImageBinding> image_bindings(const Definition& d, const Shape& shape) {
  std::vector<vk::ImageBinding> list;
  for (const auto& b : d.buffers)
    if (b.image) list.push_back(image_binding(d, b, shape));
  return list;
}

Violation image_violation(const Definition& d, const Shape& shape, const vk::DeviceInfo& device) {
  for (const auto& b : d.buffers) {
    if (!b.image) continue;
    const auto binding = image_binding(d, b, shape);
    const auto& offered = binding.kind == vk::ImageKind::storage ? device.storage_image_formats : device.sampled_image_formats;
    const std::string format = vk::format_name(binding.format);
    if (std::find(offered.begin(), offered.end(), format) == offered.end()) {
      return kImageFormat("'" + b.name + "' is " + vk::describe(binding) + ", which the device does not offer (" +
                          (binding.kind == vk::ImageKind::storage ? "STORAGE_IMAGE" : "SAMPLED_IMAGE") +
                          " and transfers for optimal tiling)");
    }
    const std::uint32_t limit = binding.dims == 3 ? device.max_image_dimension_3d : device.max_image_dimension_2d;
    const auto largest = *std::max_element(binding.extent.begin(), binding.extent.end());
    if (largest > limit) {
      return kImageExtent("'" + b.name + "' is " + std::to_string(binding.extent[0]) + "x" +
                          std::to_string(binding.extent[1]) + "x" + std::to_string(binding.extent[2]) +
                          " texels, past the device's maxImageDimension" + std::to_string(binding.dims) + "D " +
                          std::to_string(limit));
    }
  }
  return {};
}

std::string image_contract_unfit(const Definition& d) {
  for (const auto& b : d.buffers) {
    if (!b.image) continue;
    return d.file + ": " + b.image->pointer +
           ": an image binding, which a launch contract cannot carry yet (it lists storage and uniform buffers only, and the "
           "runtime library binds no image)";
  }
  return "";
}

namespace {

template <class T>
void pack_words(HostBuffer& host, const PackedExtents& e) {
  std::vector<T> logical(host.bytes.size() / sizeof(T));
  if (!logical.empty()) std::memcpy(logical.data(), host.bytes.data(), logical.size() * sizeof(T));
  const auto texels = pack_channels<T>(logical, e, T{0});  // +0 as f32 and as f16
  host.bytes.assign(texels.size() * sizeof(T), 0);
  std::memcpy(host.bytes.data(), texels.data(), host.bytes.size());
}

}  // namespace

void pack_host_image(HostBuffer& host, const PackedExtents& e, const vk::ImageBinding& binding) {
  if (binding.format == vk::ImageFormat::rgba32f) {
    pack_words<std::uint32_t>(host, e);
  } else {
    pack_words<std::uint16_t>(host, e);
  }
  host.image = binding;
  host.is_weights = false;  // one image: no copies to rotate
}

}  // namespace vktune::kernels::spec
