// A spec's uniform buffer through the built vktune on the test device:
// examples/uniform_softmax (sizes and scale in a std140 uniform block)
// passes `vktune check`; a spec that binds the shader's uniform block as a
// storage buffer, a shader's storage buffer as a uniform one, gives fewer
// members than the shader's block declares, or an integer member where the
// shader's is a float, is refused at load in one
// line naming the binding, before any device is opened (--device 999); and
// a tuned winner is stored and runs through the runtime library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "../results/cli_run.hpp"
#include "spec_cli_fixture.hpp"
#include "vktune_runtime.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::run_vktune;

const fs::path kUniformExample = fs::path(VKTUNE_EXAMPLES_DIR) / "uniform_softmax";

class SpecUniformCli : public testing_support::SpecFolderTest {
 protected:
  SpecUniformCli() : SpecFolderTest("vktune_uniform") {}
  void SetUp() override {
    SpecFolderTest::SetUp();
    std::ifstream shader(kUniformExample / "softmax.comp");
    shader_ = {std::istreambuf_iterator<char>(shader), std::istreambuf_iterator<char>()};
    std::ifstream in(kUniformExample / "softmax.json");
    spec_ = json::parse(in, nullptr, true, true);
  }
  // The spec and shader as edited, written to the test's folder.
  fs::path write() {
    std::ofstream(dir_ / "softmax.comp") << shader_;
    std::ofstream(dir_ / "softmax.json") << spec_.dump(2);
    return dir_ / "softmax.json";
  }
  // A refusal at load: exit 2 and one line, naming `line`.
  void expect_refused(const std::string& line) {
    const auto r = run_vktune("check " + quoted(write()) + " --device 999", dir_ / "stderr.txt");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(line), std::string::npos) << r.err;
  }
  std::string shader_;
  json spec_;
};

TEST_F(SpecUniformCli, TheExampleChecks) {
  const auto r = run_vktune("check " + quoted(kUniformExample / "softmax.json") + " --device 0", dir_ / "stderr.txt");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 failed"), std::string::npos) << r.out;
  // The check draws its inputs from a seed of its own: say which, to replay a failure with --seed.
  const auto seed = r.out.find("check: seed ");
  if (seed != std::string::npos) std::cout << r.out.substr(seed, r.out.find('\n', seed) - seed) << "\n";
}

TEST_F(SpecUniformCli, TheShadersUniformBlockDeclaredAStorageBufferIsRefusedAtLoad) {
  spec_["buffers"][2] = {{"name", "meta"}, {"binding", 2}, {"type", "u32"}, {"size", "10"}, {"role", "input"}};
  expect_refused("softmax.comp: the shader uses binding 2 as a uniform buffer, where the kernel binds a storage buffer");
}

TEST_F(SpecUniformCli, TheShadersStorageBufferDeclaredUniformIsRefusedAtLoad) {
  const std::string block = "layout(std140, set = 0, binding = 2) uniform restrict Meta {";
  ASSERT_NE(shader_.find(block), std::string::npos);
  shader_.replace(shader_.find(block), block.size(), "layout(std430, set = 0, binding = 2) readonly buffer restrict Meta {");
  expect_refused("softmax.comp: the shader uses binding 2 as a storage buffer, where the kernel binds a uniform buffer");
}

TEST_F(SpecUniformCli, AShaderBlockPastTheSpecsMembersIsRefusedAtLoad) {
  spec_["buffers"][2]["members"].erase(3);  // in_row_stride, which the shader reads at byte 36
  expect_refused("softmax.comp: the shader declares binding 2 a uniform block of 40 bytes, but the kernel's block "
                 "holds 36");
}

TEST_F(SpecUniformCli, AFloatMemberGivenAnIntegerIsRefusedAtLoad) {
  spec_["buffers"][2]["members"][2] = {{"name", "scale"}, {"type", "i32"}, {"value", 1}};  // the shader's float scale
  expect_refused("softmax.comp: the shader's uniform member at offset 32 of binding 2 is f32, but the spec's block "
                 "gives byte 32 an integer: give the spec's member a float type");
}

// The winner is stored with its contract, and an application runs it from
// the exported table through the C API and the Vulkan glue
// (tests/kernels/spec_views_run.c): the block the lookup computes for the
// shape, uploaded and bound as a uniform buffer, at the tuned shape and at
// one nobody tuned, checked against a softmax worked out in the program.
TEST_F(SpecUniformCli, ATunedWinnerIsStoredAndRunsThroughTheRuntime) {
  const auto db = dir_ / "tuned.db";
  const auto tune = run_vktune(quoted(write()) + " --device 0 --shape 3,1000 --budget 2 --seed 1 --db " + quoted(db),
                               dir_ / "stderr.txt");
  ASSERT_EQ(tune.exit_code, 0) << tune.err << tune.out;
  EXPECT_EQ(tune.out.find("the winner is not stored"), std::string::npos) << tune.out;
  ASSERT_EQ(runtime::Table::open(db).entries().size(), 1u);
  const auto table = dir_ / "table.json";
  const auto exported = run_vktune("export --format json --db " + quoted(db) + " -o " + quoted(table), dir_ / "stderr.txt");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  for (const std::string shape : {"3 1000", "5 777"}) {
    const auto out = dir_ / "run.txt";
    const int status = std::system((quoted(VKTUNE_SPEC_VIEWS_RUN) + " " + quoted(table) + " uniform_softmax " + shape +
                                    " > " + quoted(out) + " 2>&1")
                                       .c_str());
    std::ifstream in(out);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(status, 0) << shape << "\n" << text;
    EXPECT_NE(text.find("binding 2: a uniform block of 40 bytes"), std::string::npos) << text;
    EXPECT_NE(text.find(": OK"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace vktune
