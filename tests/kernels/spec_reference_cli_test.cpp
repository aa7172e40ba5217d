// A spec's reference on the device, through the built vktune on the test
// device: a trusted config of the spec's own space and a reference kernel in
// GLSL each decide which variants pass (the variants made wrong on purpose,
// and only those, fail); a reference that cannot serve stops the run with
// one line and exit 2. And parameters delivered as specialization constants
// reach the pipeline (a template that writes nothing without them fails).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "../results/cli_run.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::read_text;
using results::testing::run_vktune;

const fs::path kExample = fs::path(VKTUNE_EXAMPLES_DIR) / "pytorch_softmax";

// A one-invocation-per-row softmax in the example's layout (output at
// binding 0, input at 1, WHCN sizes pushed), written plainly as a reference.
const char* kNaiveSoftmax = R"(#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) writeonly buffer OutBuffer { float t_out[]; };
layout(std430, set = 0, binding = 1) readonly buffer InBuffer { float t_in[]; };
layout(push_constant) uniform Block { uvec4 sizes; } uBlock;
void main() {
  const uint width = uBlock.sizes.x;
  const uint base = gl_WorkGroupID.x * width;
  float m = t_in[base];
  for (uint i = 1u; i < width; ++i) m = max(m, t_in[base + i]);
  float sum = 0.0;
  for (uint i = 0u; i < width; ++i) sum += exp(t_in[base + i] - m);
  for (uint i = 0u; i < width; ++i) SKIP_ROW_0 t_out[base + i] = exp(t_in[base + i] - m) / sum;
}
)";

class SpecReferenceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vktune_spec_reference_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    spec_ = json::parse(read_text(kExample / "softmax.json"), nullptr, true, true);
    shader_ = read_text(kExample / "softmax.comp");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The example's shader with variants of ITEMS = `wrong_items` scaled 1% off.
  void write_shader(int wrong_items) {
    const std::string scaled = "exp(t_in[base + i + j] - row_max) * inv;";
    std::string text = shader_;
    ASSERT_NE(text.find(scaled), std::string::npos);
    text.replace(
        text.find(scaled), scaled.size(),
        "exp(t_in[base + i + j] - row_max) * inv * (ITEMS == " + std::to_string(wrong_items) + " ? 1.01 : 1.0);");
    std::ofstream(dir_ / "softmax.comp") << text;
  }
  results::testing::CliRun check() {
    std::ofstream(dir_ / "softmax.json") << spec_.dump(2);
    return run_vktune("check " + quoted(dir_ / "softmax.json") + " --device 0 --json", dir_ / "stderr.txt");
  }
  // The ITEMS values of the failed checks, and how many checks passed.
  static std::multiset<int> failed_items(const json& report) {
    std::multiset<int> items;
    for (const auto& f : report.at("failures")) {
      EXPECT_EQ(f.at("status"), "wrong_result") << f.dump();
      items.insert(f.at("config").at("ITEMS").get<int>());
    }
    return items;
  }

  fs::path dir_;
  json spec_;
  std::string shader_;
};

TEST_F(SpecReferenceCli, ATrustedConfigDecidesWhichVariantsPass) {
  write_shader(4);
  spec_["reference"] = {{"config", {{"WG_SIZE", 64}, {"ITEMS", 1}}}};
  auto r = check();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto report = json::parse(r.out);
  auto failed = failed_items(report);
  EXPECT_GT(report.at("passed").get<int>(), 0);
  EXPECT_EQ(failed.count(4), failed.size()) << r.out;  // only the wrong ones
  EXPECT_GT(failed.count(4), 0u);

  // Trusting a wrong config turns the verdicts around: now every variant
  // that computes softmax correctly differs from it.
  spec_["reference"] = {{"config", {{"WG_SIZE", 64}, {"ITEMS", 4}}}};
  r = check();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  report = json::parse(r.out);
  failed = failed_items(report);
  EXPECT_EQ(failed.count(4), 0u) << r.out;
  EXPECT_EQ(failed.size(), report.at("failed").get<std::size_t>());
  EXPECT_GT(failed.size(), 0u);
}

// A tune rotates copies of the weights (cold cache): with the input made
// weights, small enough for many copies, the trusted config runs on every
// copy's descriptor set. Its pool once held two sets, and such a tune
// stopped with VK_ERROR_OUT_OF_POOL_MEMORY before any variant on an H200
// (measurements/nvidia-h200/session32/row_read). lavapipe does not enforce a
// pool's size, so there this test guards the path; a device that does
// (VKTUNE_TEST_DEVICE on a GPU) fails it on that code.
TEST_F(SpecReferenceCli, ATrustedConfigServesATuneOverManyWeightCopies) {
  write_shader(0);  // no ITEMS is 0: every variant right
  spec_["reference"] = {{"config", {{"WG_SIZE", 64}, {"ITEMS", 1}}}};
  spec_["buffers"][1]["role"] = "weights";
  std::ofstream(dir_ / "softmax.json") << spec_.dump(2);
  const auto r = run_vktune(quoted(dir_ / "softmax.json") + " --device 0 --shape 3,1000 --budget 2 --seed 4 --db " +
                                quoted(dir_ / "t.db") + " --json",
                            dir_ / "stderr.txt");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = json::parse(r.out);
  const auto& shape = report.at("shapes").at(0);
  EXPECT_EQ(shape.at("failures"), 0) << r.out;
  EXPECT_GE(shape.at("outcomes").size(), 3u) << r.out;  // the baseline and two more
}

TEST_F(SpecReferenceCli, AReferenceKernelInGlslDecidesWhichVariantsPass) {
  write_shader(2);
  std::string naive = kNaiveSoftmax;
  naive.replace(naive.find("SKIP_ROW_0 "), 11, "");
  std::ofstream(dir_ / "naive.comp") << naive;
  spec_["reference"] = {{"template", "naive.comp"}, {"local_size", {1, 1, 1}}, {"workgroups", {"rows", 1, 1}}};
  auto r = check();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto report = json::parse(r.out);
  const auto failed = failed_items(report);
  EXPECT_GT(report.at("passed").get<int>(), 0);
  EXPECT_EQ(failed.count(2), failed.size()) << r.out;
  EXPECT_GT(failed.count(2), 0u);

  // A reference that leaves row 0 unwritten is no reference: one line naming it, exit 2.
  naive = kNaiveSoftmax;
  naive.replace(naive.find("SKIP_ROW_0 "), 11, "if (gl_WorkGroupID.x != 0u) ");
  std::ofstream(dir_ / "naive.comp") << naive;
  r = check();
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the reference kernel naive.comp is not a reference here"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(SpecReferenceCli, ParametersReachTheTemplateAsSpecializationConstants) {
  // ITEMS as a #define and as constant 7 (0..2 are the workgroup size); the shader writes nothing unless
  // the two agree, so a constant that never arrives fails every variant.
  std::string text = shader_;
  const std::string main = "void main() {\n";
  ASSERT_NE(text.find(main), std::string::npos);
  text.replace(text.find(main), main.size(),
               "layout(constant_id = 7) const uint ITEMS_CONSTANT = 0u;\nvoid main() {\n"
               "  if (ITEMS_CONSTANT != uint(ITEMS)) return;\n");
  std::ofstream(dir_ / "softmax.comp") << text;
  for (auto& p : spec_["subspaces"][0]["parameters"]) {
    if (p["name"] == "ITEMS") p["constant_id"] = 7, p["define"] = true;
  }
  auto r = check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out).at("failed"), 0) << r.out;

  // Without the constant the same shader writes nothing: the check sees it.
  for (auto& p : spec_["subspaces"][0]["parameters"]) {
    if (p["name"] == "ITEMS") p.erase("constant_id");
  }
  r = check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
}

}  // namespace
}  // namespace vktune
