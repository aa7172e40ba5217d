// A spec's images (kernels/spec/spec_image.hpp) without a device: the
// channels-packed layout against an index computation of its own (texel by
// texel, not element by element as the code under test), a problem's
// texels and expected output packed that way with the padding expected 0,
// every stage planning the images, the legality of a device without the
// format or the extent (a named rule, not a crash), no launch contract,
// and each wrong field refused in one line naming its JSON pointer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_image.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "kernels/variant_contract.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

TEST(SpecImageLayout, PackingPutsEveryChannelInItsTexelAndPadsWithZero) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 rng(seed);
  for (int round = 0; round < 20; ++round) {
    PackedExtents e;
    e.n = 1 + rng() % 3;
    e.c = 1 + rng() % 13;
    if (e.c % 4 == 0) ++e.c;  // never a whole number of texels: the last slice has padding
    e.h = 1 + rng() % 6;
    e.w = 1 + rng() % 7;
    std::vector<float> logical(e.elements());
    for (auto& v : logical) v = std::uniform_real_distribution<float>(-1, 1)(rng);
    const float pad = -7.5f;
    const auto texels = pack_channels(logical, e, pad);
    // Texel by texel: (x, y, z) with z = n * slices + s holds channels 4s..4s+3 of image n at (y, x).
    const std::uint64_t slices = (e.c + 3) / 4;
    ASSERT_EQ(texels.size(), e.w * e.h * e.n * slices * 4);
    for (std::uint64_t z = 0; z < e.n * slices; ++z) {
      for (std::uint64_t y = 0; y < e.h; ++y) {
        for (std::uint64_t x = 0; x < e.w; ++x) {
          for (std::uint64_t lane = 0; lane < 4; ++lane) {
            const std::uint64_t texel = (z * e.h + y) * e.w + x;
            const std::uint64_t n = z / slices, c = (z % slices) * 4 + lane;
            const float want = c < e.c ? logical[((n * e.c + c) * e.h + y) * e.w + x] : pad;
            ASSERT_EQ(texels[texel * 4 + lane], want) << "n " << e.n << " c " << e.c << " texel (" << x << ", " << y
                                                      << ", " << z << ") lane " << lane;
          }
        }
      }
    }
    EXPECT_EQ(unpack_channels(texels, e), logical);
  }
}

// A bias and ReLU6 over a channels-packed image: x (sampled) in, y (storage) out, b a buffer.
json image_spec() {
  return json::parse(R"json({
    "name": "t_image", "shape": ["C", "H", "W"], "default_shapes": [[6, 3, 5]], "check_shapes": [[6, 3, 5]],
    "subspaces": [{"name": "only", "template": "k.comp", "parameters": [{"name": "WG", "values": [8, 4]}],
                   "local_size": ["WG", 1, 1],
                   "stages": [{"workgroups": [{"dim": "W", "per_workgroup": "WG"}, "H", {"dim": "C", "per_workgroup": 4}]}]}],
    "buffers": [{"name": "x", "binding": 0, "role": "input",
                 "image": {"kind": "sampled", "dims": 3, "format": "rgba32f", "layout": "channels_packed", "tensor": ["C", "H", "W"]}},
                {"name": "y", "binding": 1, "role": "output",
                 "image": {"kind": "storage", "format": "rgba16f", "tensor": ["C", "H", "W"]}},
                {"name": "b", "binding": 2, "type": "f32", "size": "C", "role": "weights"}],
    "metrics": {"bytes": "6 * C * H * W", "flops": "2 * C * H * W"},
    "reference": {"expression": "y[c][i][j] = relu6(x[c][i][j] + b[c])",
                  "arrays": {"y": ["C", "H", "W"], "x": ["C", "H", "W"], "b": ["C"]}}})json");
}

SpecKernel load_image(const json& spec) {
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    if (path == "k.comp") return std::string("#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n");
    return std::nullopt;
  };
  return SpecKernel(parse_spec(spec.dump(), "my/spec.json", read));
}

std::string image_refusal(const json& spec) {
  try {
    const auto kernel = load_image(spec);
    for (const auto& shape : kernel.check_shapes()) kernel.make_problem(shape, 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

vk::DeviceInfo image_device() {
  vk::DeviceInfo d;
  d.max_workgroup_size = {1024, 1024, 64};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 32768;
  d.max_storage_buffer_range = 1u << 30;
  d.max_push_constants_bytes = 128;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  d.max_image_dimension_2d = d.max_image_dimension_3d = 2048;
  d.storage_image_formats = {"rgba32f", "rgba16f"};
  d.sampled_image_formats = {"rgba32f", "rgba16f"};
  return d;
}

TEST(SpecImage, AProblemHoldsTexelsAndExpectsPackedOutputWithZeroPadding) {
  const auto kernel = load_image(image_spec());
  const Shape shape{6, 3, 5};
  const auto problem = kernel.make_problem(shape, 42);
  const PackedExtents e{1, 6, 3, 5};
  // x: rgba32f texels, 2 slices of 3 x 5.
  const auto& x = problem.buffers[0];
  ASSERT_TRUE(x.image.has_value());
  EXPECT_EQ(x.image->kind, vk::ImageKind::sampled);
  EXPECT_EQ(x.image->extent, (std::array<std::uint32_t, 3>{5, 3, 2}));
  EXPECT_FALSE(x.is_weights);  // one image: no cold-cache copies
  ASSERT_EQ(x.bytes.size(), e.texels() * 16);
  std::vector<float> texels(e.texels() * 4);
  std::memcpy(texels.data(), x.bytes.data(), x.bytes.size());
  const auto logical = unpack_channels(texels, e);
  // The padding channels of slice 1 are +0.
  for (std::uint64_t t = 0; t < 15; ++t) {
    EXPECT_EQ(texels[(15 + t) * 4 + 2], 0.0f);
    EXPECT_EQ(texels[(15 + t) * 4 + 3], 0.0f);
  }
  std::vector<float> bias(6);
  std::memcpy(bias.data(), problem.buffers[2].bytes.data(), 24);
  // y: rgba16f, 8 bytes a texel; its expected values in texel order, padding 0.
  const auto& y = problem.buffers[1];
  ASSERT_TRUE(y.image.has_value());
  EXPECT_EQ(y.image->format, vk::ImageFormat::rgba16f);
  EXPECT_EQ(y.bytes.size(), e.texels() * 8);
  EXPECT_TRUE(problem.output_f16);
  ASSERT_EQ(problem.expected.size(), e.texels() * 4);
  for (std::uint64_t c = 0; c < 8; ++c) {
    for (std::uint64_t i = 0; i < 3; ++i) {
      for (std::uint64_t j = 0; j < 5; ++j) {
        const auto at = ((c / 4 * 3 + i) * 5 + j) * 4 + c % 4;
        const double want = c < 6 ? std::min(std::max(double(logical[(c * 3 + i) * 5 + j]) + bias[c], 0.0), 6.0) : 0.0;
        EXPECT_DOUBLE_EQ(problem.expected[at], want) << c << " " << i << " " << j;
      }
    }
  }
  // Every stage plans both images at the shape.
  const auto stages = kernel.stages(kernel.baseline(shape), shape);
  ASSERT_EQ(stages.front().images.size(), 2u);
  EXPECT_EQ(stages.front().images[1].binding, 1u);
  EXPECT_EQ(stages.front().images[1].kind, vk::ImageKind::storage);
}

TEST(SpecImage, PaddingAnyAsksOnlyForAFiniteValue) {
  auto spec = image_spec();
  spec["buffers"][1]["image"]["padding"] = "any";
  const auto problem = load_image(spec).make_problem({6, 3, 5}, 1);
  EXPECT_TRUE(std::isnan(problem.expected[15 * 4 + 3]));  // slice 1, channel 7
  EXPECT_FALSE(std::isnan(problem.expected[15 * 4 + 1]));  // channel 5
}

TEST(SpecImage, ADeviceWithoutTheFormatOrExtentMakesEveryConfigIllegalWithAReason) {
  const auto kernel = load_image(image_spec());
  const Shape shape{6, 3, 5};
  auto device = image_device();
  EXPECT_TRUE(kernel.constraint_violation(kernel.baseline(shape), shape, device).empty());
  device.storage_image_formats = {"rgba32f"};  // no rgba16f storage image
  const auto format = kernel.constraint_violation(kernel.baseline(shape), shape, device);
  EXPECT_EQ(format.rule, "image.format");
  EXPECT_NE(format.detail.find("'y' is a 3-D storage image of rgba16f, which the device does not offer"),
            std::string::npos)
      << format.detail;
  device = image_device();
  device.max_image_dimension_3d = 4;  // W = 5 texels
  const auto extent = kernel.constraint_violation(kernel.baseline(shape), shape, device);
  EXPECT_EQ(extent.rule, "image.extent");
  EXPECT_NE(extent.detail.find("5x3x2 texels, past the device's maxImageDimension3D 4"), std::string::npos)
      << extent.detail;
}

TEST(SpecImage, NoLaunchContractCarriesAnImage) {
  const auto kernel = load_image(image_spec());
  const Shape shape{6, 3, 5};
  EXPECT_NE(kernel.spaces().front().contract_unfit.find(
                "my/spec.json: /buffers/0/image: an image binding, which a launch contract cannot carry yet"),
            std::string::npos)
      << kernel.spaces().front().contract_unfit;
  EXPECT_THROW(launch_contract(kernel, kernel.baseline(shape), shape), Error);
}

TEST(SpecImage, WrongFieldsAreRefusedNamingThem) {
  const auto refusal = [](const std::string& pointer, const json& value) {
    auto spec = image_spec();
    spec[json::json_pointer(pointer)] = value;
    return image_refusal(spec);
  };
  EXPECT_NE(refusal("/buffers/0/image/kind", "texture").find("my/spec.json: /buffers/0/image/kind: unknown image kind 'texture'"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/image/format", "rgba8").find("/buffers/0/image/format: unknown image format 'rgba8'"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/1/image/kind", "sampled").find("/buffers/1/image/kind: a sampled image is read only"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/image/layout", "nhwc").find("/buffers/0/image/layout: unknown layout 'nhwc'"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/image/tensor", json::array({"C", "H"})).find("/buffers/0/image/tensor"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/image/dims", 2).find("/buffers/0/image/tensor: a 2-D image holds one image of at most 4 "
                                                   "channels, but shape 6,3,5 gives 1 of 6"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/type", "f32").find("/buffers/0/type"), std::string::npos);
  EXPECT_NE(refusal("/buffers/0/image/padding", "any").find("/buffers/0/image/padding: only an output's padding"),
            std::string::npos);
  EXPECT_NE(refusal("/buffers/0/role", "scratch").find("/buffers/0/image: an image is an input, weights or the output"),
            std::string::npos);
  // An array extent that disagrees with the tensor is the reference's, as for any buffer.
  EXPECT_NE(refusal("/reference/arrays/x", json::array({"C", "W", "W"})).find("x"), std::string::npos);
}

}  // namespace
}  // namespace vktune::kernels::spec
