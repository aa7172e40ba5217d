// A spec's images through the built vktune on the test device:
// examples/texture_conv (a sampled 3-D texture in, a storage 3-D image out,
// channels packed) fails `vktune check` when its shader leaves one texel
// unwritten or writes a padding channel (the example as shipped passes as
// ctest's spec.check.texture_conv.depthwise_texture); a spec whose image
// disagrees with the shader's declaration (its format, its kind) is refused
// at load in one line naming the binding, before any device is opened
// (--device 999), with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "../results/cli_run.hpp"
#include "spec_cli_fixture.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::run_vktune;

const fs::path kTextureExample = fs::path(VKTUNE_EXAMPLES_DIR) / "texture_conv";

class SpecImageCli : public testing_support::SpecFolderTest {
 protected:
  SpecImageCli() : SpecFolderTest("vktune_image") {}
  void SetUp() override {
    SpecFolderTest::SetUp();
    std::ifstream shader(kTextureExample / "depthwise_texture.comp");
    shader_ = {std::istreambuf_iterator<char>(shader), std::istreambuf_iterator<char>()};
    std::ifstream in(kTextureExample / "depthwise_texture.json");
    spec_ = json::parse(in, nullptr, true, true);
  }
  fs::path write() {
    std::ofstream(dir_ / "depthwise_texture.comp") << shader_;
    std::ofstream(dir_ / "depthwise_texture.json") << spec_.dump(2);
    return dir_ / "depthwise_texture.json";
  }
  void replace(const std::string& from, const std::string& to) {
    const auto at = shader_.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    shader_.replace(at, from.size(), to);
  }
  // One variant per check shape: enough for a broken shader, which every variant shares.
  results::testing::CliRun check_one() {
    const auto r = run_vktune("check " + quoted(write()) + " --device 0 --variants sample:1", dir_ / "stderr.txt");
    const auto seed = r.out.find("check: seed ");
    if (seed != std::string::npos) std::cout << r.out.substr(seed, r.out.find('\n', seed) - seed) << "\n";
    return r;
  }
  void expect_refused(const std::string& line) {
    const auto spec = write();
    const auto r = run_vktune("check " + quoted(spec) + " --device 999", dir_ / "stderr.txt");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(line), std::string::npos) << r.err;
    // Nothing written: the folder holds what the test put there.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 3u);  // the spec, its shader, the captured stderr
  }
  std::string shader_;
  json spec_;
};

TEST_F(SpecImageCli, AShaderThatLeavesATexelUnwrittenFails) {
  // Texel (0, 0, z) goes to (1, 0, z): one texel keeps its NaN poison.
  replace("imageStore(uOutput, at, clamp(sum, 0.0, 6.0));",
          "imageStore(uOutput, at.xy == ivec2(0) ? ivec3(1, 0, at.z) : at, clamp(sum, 0.0, 6.0));");
  const auto r = check_one();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("failed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("0 failed"), std::string::npos) << r.out;
}

TEST_F(SpecImageCli, AShaderThatWritesAPaddingChannelFails) {
  // Every real channel right; the fourth lane of the last slice (a padding
  // channel where C is no multiple of 4) written 1 instead of 0.
  replace("imageStore(uOutput, at, clamp(sum, 0.0, 6.0));",
          "vec4 r = clamp(sum, 0.0, 6.0); if (c0 + 3u >= shape.C) r.w = 1.0; imageStore(uOutput, at, r);");
  const auto r = check_one();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("0 failed"), std::string::npos) << r.out;
}

TEST_F(SpecImageCli, AnotherStorageFormatInTheShaderIsRefusedAtLoad) {
  replace("binding = 1, rgba32f) uniform writeonly image3D", "binding = 1, rgba16f) uniform writeonly image3D");
  expect_refused("depthwise_texture.comp: the shader declares binding 1 with format rgba16f, where the kernel binds a "
                 "3-D storage image of rgba32f");
}

TEST_F(SpecImageCli, ASampledTextureDeclaredAStorageImageIsRefusedAtLoad) {
  spec_["buffers"][0]["image"]["kind"] = "storage";
  expect_refused("depthwise_texture.comp: the shader uses binding 0 as a sampled image (combined image sampler), "
                 "where the kernel binds a 3-D storage image of rgba32f");
}

TEST_F(SpecImageCli, ATwoDimensionalImageInTheSpecIsRefusedAtLoad) {
  spec_["buffers"][1]["image"]["dims"] = 2;
  spec_["check_shapes"] = json::array({json::array({3, 5, 12})});  // one slice: a 2-D image holds it
  spec_["default_shapes"] = spec_["check_shapes"];
  expect_refused("the shader declares binding 1 a 3-D storage image, where the kernel binds a 2-D storage image of "
                 "rgba32f");
}

}  // namespace
}  // namespace vktune
