// Images (harness/image.hpp) on the test device under the validation layer:
// texels go in through a buffer and come back out unchanged, a dispatch
// reads a sampled 3-D texture and writes a storage 3-D image bound through
// PipelineDesc::images, the device reports the formats a spec's images
// need; and (no device) a module's images as SPIRV-Cross reads them, with
// each disagreement with the kernel's binding named in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>

#include "harness/image.hpp"
#include "harness/shader_interface.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

// Finite values only: the bits of a NaN need not survive a format's copy.
std::vector<std::uint8_t> finite_texels(std::size_t values, vk::ImageFormat format, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0xffffffffu);
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < values; ++i) {
    if (format == vk::ImageFormat::rgba32f) {
      const std::uint32_t word = bits(rng) & 0xbfffffffu;  // exponent below all ones: finite
      bytes.insert(bytes.end(), {static_cast<std::uint8_t>(word), static_cast<std::uint8_t>(word >> 8),
                                 static_cast<std::uint8_t>(word >> 16), static_cast<std::uint8_t>(word >> 24)});
    } else {
      const auto half = static_cast<std::uint16_t>(bits(rng) & 0xbfffu);
      bytes.insert(bytes.end(), {static_cast<std::uint8_t>(half), static_cast<std::uint8_t>(half >> 8)});
    }
  }
  return bytes;
}

class ImageTest : public VulkanTest {};

TEST_F(ImageTest, TexelsComeBackThroughTheImage) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  for (const auto& binding : {vk::ImageBinding{0, vk::ImageKind::storage, 3, vk::ImageFormat::rgba32f, {5, 3, 2}},
                              vk::ImageBinding{1, vk::ImageKind::sampled, 3, vk::ImageFormat::rgba16f, {7, 2, 3}},
                              vk::ImageBinding{2, vk::ImageKind::storage, 2, vk::ImageFormat::rgba16f, {9, 4, 1}}}) {
    SCOPED_TRACE(vk::describe(binding));
    vk::Image image(device(), binding);
    const auto texels = finite_texels(image.bytes() / (binding.format == vk::ImageFormat::rgba32f ? 4 : 2),
                                      binding.format, seed);
    ASSERT_EQ(texels.size(), image.bytes());
    vk::Buffer in(device(), 256 + texels.size()), out(device(), texels.size() + 64);
    in.upload(texels, 256);
    image.copy_from(in, 256);
    image.copy_to(out, 0);
    EXPECT_EQ(out.download(0, texels.size()), texels);
    // A second upload over the first (the image no longer undefined).
    const auto again = finite_texels(texels.size() / (binding.format == vk::ImageFormat::rgba32f ? 4 : 2),
                                     binding.format, seed + 1);
    in.upload(again, 256);
    image.copy_from(in, 256);
    image.copy_to(out, 0);
    EXPECT_EQ(out.download(0, again.size()), again);
  }
}

// Each output texel is twice its input texel, plus (x, y, z, 0).
const char* kDoubleTexels = R"(#version 450
layout(local_size_x = 4, local_size_y = 2, local_size_z = 1) in;
layout(binding = 0) uniform sampler3D src;
layout(binding = 1, rgba32f) uniform writeonly image3D dst;
void main() {
  const ivec3 at = ivec3(gl_GlobalInvocationID);
  if (any(greaterThanEqual(at, ivec3(5, 3, 2)))) return;
  imageStore(dst, at, 2.0 * texelFetch(src, at, 0) + vec4(at, 0));
}
)";

TEST_F(ImageTest, ADispatchReadsASampledTextureAndWritesAStorageImage) {
  const vk::ImageBinding src{0, vk::ImageKind::sampled, 3, vk::ImageFormat::rgba32f, {5, 3, 2}};
  const vk::ImageBinding dst{1, vk::ImageKind::storage, 3, vk::ImageFormat::rgba32f, {5, 3, 2}};
  vk::PipelineDesc desc;
  desc.storage_buffers = 2;
  desc.images = {src, dst};
  desc.local_size = {4, 2, 1};
  vk::ComputePipeline pipeline(device(), compile_glsl("double.comp", kDoubleTexels), desc);
  vk::Image in_image(device(), src), out_image(device(), dst);
  std::vector<float> values(5 * 3 * 2 * 4);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * static_cast<float>(i) - 3.0f;
  vk::Buffer staging(device(), values.size() * 4);
  staging.upload_values(std::span<const float>(values));
  in_image.copy_from(staging, 0);
  out_image.copy_from(staging, 0);  // out of UNDEFINED; every texel is written below
  const std::vector<const vk::Buffer*> buffers{&staging, &staging};
  const std::vector<VkDeviceSize> offsets{0, 0};
  const std::vector<const vk::Image*> images{&in_image, &out_image};
  const auto set = pipeline.make_descriptor_set(buffers, offsets, images);
  vk::run_commands(device(), [&](VkCommandBuffer cmd) { pipeline.record_dispatch(cmd, set, {2, 2, 2}); });
  out_image.copy_to(staging, 0);
  const auto got = staging.download_values<float>();
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        for (int c = 0; c < 4; ++c) {
          const std::size_t i = static_cast<std::size_t>(((z * 3 + y) * 5 + x) * 4 + c);
          const float offset = c == 0 ? float(x) : c == 1 ? float(y) : c == 2 ? float(z) : 0.0f;
          EXPECT_EQ(got[i], 2.0f * values[i] + offset) << x << " " << y << " " << z << " " << c;
        }
  // Without the image at a binding the layout makes an image, no set is made.
  const std::vector<const vk::Image*> missing{&in_image, nullptr};
  const auto error = capture_error([&] { pipeline.make_descriptor_set(buffers, offsets, missing); });
  EXPECT_NE(std::string(error.what()).find("binding 1 needs a 3-D storage image of rgba32f"), std::string::npos)
      << error.what();
}

TEST_F(ImageTest, TheDeviceReportsItsImageFormats) {
  const auto& info = device().info();
  EXPECT_GE(info.max_image_dimension_3d, 256u);  // the least the specification allows
  EXPECT_GE(info.max_image_dimension_2d, 4096u);
  // The specification's mandatory format support holds both as storage and
  // sampled images with optimal tiling (neither is one of
  // shaderStorageImageExtendedFormats'); a device short of one makes a
  // spec's configs illegal (kernels/spec/spec_image.hpp), never a crash.
  for (const auto* list : {&info.storage_image_formats, &info.sampled_image_formats}) {
    EXPECT_NE(std::find(list->begin(), list->end(), "rgba32f"), list->end());
    EXPECT_NE(std::find(list->begin(), list->end(), "rgba16f"), list->end());
  }
}

const char* kImageKinds = R"(#version 450
layout(local_size_x = 1) in;
layout(binding = 0) uniform sampler3D x;
layout(binding = 1, rgba16f) uniform writeonly image3D y;
layout(binding = 2, rgba32f) uniform readonly image2D z;
void main() {
  imageStore(y, ivec3(0), texelFetch(x, ivec3(0), 0) + imageLoad(z, ivec2(0)));
}
)";

TEST(ShaderInterfaceImages, KindDimensionsFormatAndTheirDisagreements) {
  std::string why;
  const auto interface = vk::reflect_interface(compile_glsl("kinds.comp", kImageKinds), why);
  ASSERT_TRUE(interface.has_value()) << why;
  ASSERT_EQ(interface->bindings.size(), 3u);
  const auto& x = interface->bindings[0];
  const auto& y = interface->bindings[1];
  const auto& z = interface->bindings[2];
  EXPECT_EQ(x.kind, "sampled image");
  EXPECT_EQ(x.image_dims, 3u);
  EXPECT_EQ(x.image_format, "");
  EXPECT_EQ(y.kind, "storage image");
  EXPECT_EQ(y.image_dims, 3u);
  EXPECT_EQ(y.image_format, "rgba16f");
  EXPECT_EQ(z.image_dims, 2u);
  EXPECT_FALSE(z.writable);

  using vk::ImageBinding, vk::ImageKind, vk::ImageFormat;
  const auto mismatch = [&](std::vector<ImageBinding> images) {
    return vk::interface_mismatch(*interface, 3, {}, images, 0, false);
  };
  const ImageBinding sx{0, ImageKind::sampled, 3, ImageFormat::rgba32f, {1, 1, 1}};
  const ImageBinding sy{1, ImageKind::storage, 3, ImageFormat::rgba16f, {1, 1, 1}};
  const ImageBinding sz{2, ImageKind::storage, 2, ImageFormat::rgba32f, {1, 1, 1}};
  EXPECT_EQ(mismatch({sx, sy, sz}), "");
  auto wrong = sy;
  wrong.format = ImageFormat::rgba32f;
  EXPECT_EQ(mismatch({sx, wrong, sz}), "the shader declares binding 1 with format rgba16f, where the kernel binds a 3-D "
                                       "storage image of rgba32f (declare layout(rgba32f))");
  wrong = sx;
  wrong.kind = ImageKind::storage;
  EXPECT_EQ(mismatch({wrong, sy, sz}), "the shader uses binding 0 as a sampled image (combined image sampler), where "
                                       "the kernel binds a 3-D storage image of rgba32f");
  wrong = sz;
  wrong.dims = 3;
  EXPECT_EQ(mismatch({sx, sy, wrong}), "the shader declares binding 2 a 2-D storage image, where the kernel binds a 3-D "
                                       "storage image of rgba32f");
  EXPECT_EQ(mismatch({sx, sy}), "the shader uses binding 2 as a storage image, where the kernel binds a storage buffer");
}

}  // namespace
}  // namespace vktune::test
