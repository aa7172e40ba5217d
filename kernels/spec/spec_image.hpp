#pragma once
// A spec's image bindings ("image" in a buffer's entry): storage images and
// sampled textures holding a logical tensor in the channels-packed layout a
// mobile engine's shaders read and write. A tensor of C channels, H rows and
// W columns (and optionally N images, folded into depth) is a 3-D image of
// extent (W, H, N * ceil(C / 4)) whose texel (x, y, z) holds, in RGBA,
// channels 4s .. 4s + 3 of image n at row y, column x, where
// z = n * ceil(C / 4) + s; the channels past C in a slice's last texel
// (padding) are zero. A 2-D image is the same with depth 1 (C <= 4, N = 1).
//
// The host keeps the logical tensor: inputs are drawn, and references
// computed, exactly as for a buffer; only the bytes the device sees are
// packed (make_problem), and the expected output is packed the same way,
// its padding channels expected 0 (or, with "padding": "any", any finite
// value), so that an unwritten texel (still NaN) fails.
#include <cstdint>
#include <string>
#include <vector>

#include "common/violation.hpp"
#include "kernels/kernel.hpp"
#include "kernels/spec/spec_definition.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

inline constexpr RuleId kImageFormat{"image.format"};  // the device lacks the format's features
inline constexpr RuleId kImageExtent{"image.extent"};  // past maxImageDimension2D/3D

// A logical tensor's extents in the channels-packed layout.
struct PackedExtents {
  std::uint64_t n = 1, c = 1, h = 1, w = 1;
  std::uint64_t slices() const { return (c + 3) / 4; }  // texels along z per image
  std::uint64_t depth() const { return n * slices(); }
  std::uint64_t texels() const { return w * h * depth(); }
  std::uint64_t elements() const { return n * c * h * w; }
};

// Where logical element (n, c, h, w) lies among the texels' channels
// (texel-major: x fastest, then y, then z; four channels a texel).
inline std::uint64_t packed_index(const PackedExtents& e, std::uint64_t n, std::uint64_t c, std::uint64_t h,
                                  std::uint64_t w) {
  const std::uint64_t z = n * e.slices() + c / 4;
  return ((z * e.h + h) * e.w + w) * 4 + c % 4;
}

// The logical tensor (row-major N, C, H, W) as texels, `padding` in the
// channels past C.
template <class T>
std::vector<T> pack_channels(const std::vector<T>& logical, const PackedExtents& e, T padding) {
  std::vector<T> texels(e.texels() * 4, padding);
  std::size_t i = 0;
  for (std::uint64_t n = 0; n < e.n; ++n)
    for (std::uint64_t c = 0; c < e.c; ++c)
      for (std::uint64_t h = 0; h < e.h; ++h)
        for (std::uint64_t w = 0; w < e.w; ++w) texels[packed_index(e, n, c, h, w)] = logical[i++];
  return texels;
}

// The texels' logical tensor (its padding channels left out).
template <class T>
std::vector<T> unpack_channels(const std::vector<T>& texels, const PackedExtents& e) {
  std::vector<T> logical;
  logical.reserve(e.elements());
  for (std::uint64_t n = 0; n < e.n; ++n)
    for (std::uint64_t c = 0; c < e.c; ++c)
      for (std::uint64_t h = 0; h < e.h; ++h)
        for (std::uint64_t w = 0; w < e.w; ++w) logical.push_back(texels[packed_index(e, n, c, h, w)]);
  return logical;
}

// Reads a buffer entry's "image" (the entry's role already read): fails
// naming the field for an unknown kind, format, layout or padding, dims
// other than 2 or 3, a tensor of other than 3 or 4 extents, a sampled
// output, or a role other than input, weights and output.
std::shared_ptr<const ImageSpec> read_image(const Node& image, const Scope& dims, BindingRole role);
// The logical count, "(C) * (H) * (W)", as the buffer's `elements`.
std::string image_elements_text(const ImageSpec& image);

// The tensor's extents at `shape`; Error(usage) naming the extent where one
// is not a whole number of at least 1, or a 2-D image's depth is not 1.
PackedExtents packed_extents(const Definition& d, const BufferSpec& b, const Shape& shape);
// The binding as the harness makes it at `shape`.
vk::ImageBinding image_binding(const Definition& d, const BufferSpec& b, const Shape& shape);
// Every image binding of the spec at `shape`, by binding.
std::vector<vk::ImageBinding> image_bindings(const Definition& d, const Shape& shape);

// Why the device cannot hold the spec's images at `shape` (every config is
// then illegal): a format without the features the kind needs for optimal
// tiling (image.format), an extent past maxImageDimension2D/3D
// (image.extent); no violation where it can.
Violation image_violation(const Definition& d, const Shape& shape, const vk::DeviceInfo& device);

// Why no launch contract carries the spec ("" when it binds no image).
std::string image_contract_unfit(const Definition& d);

// `host` (a logical tensor's bytes, f32 or f16) as the texels of `e`, and
// marked as the image `binding` (one copy: no cold-cache rotation).
void pack_host_image(HostBuffer& host, const PackedExtents& e, const vk::ImageBinding& binding);

}  // namespace vktune::kernels::spec
