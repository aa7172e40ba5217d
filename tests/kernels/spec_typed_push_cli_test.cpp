// Typed push-constant words through the built vktune on the test device: a
// shader that reads a uint, a float and an int from its push constants (as
// engines' norms, softmaxes and ropes do) is given each as an expression of
// the shape with its type, and `vktune check` passes against a reference of
// one line; the same spec without the float's type is refused at load, in
// one line naming the member, before any device is opened.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../results/cli_run.hpp"
#include "spec_cli_fixture.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::run_vktune;

// y = x * scale + shift, with scale and shift pushed as a float and an int.
constexpr const char* kShader = R"(#version 450
layout(local_size_x = WG) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; float scale; int shift; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = x[i] * scale + float(shift);
}
)";

json scale_spec() {
  return json::parse(R"json({
    "name": "t_typed_push", "shape": ["n"], "default_shapes": [[4096]], "check_shapes": [[1000], [37]],
    "subspaces": [{"name": "flat", "template": "scale.comp", "parameters": [{"name": "WG", "values": [64, 128]}],
                   "local_size": ["WG", 1, 1], "stages": [{"workgroups": [{"dim": "n", "per_workgroup": "WG"}, 1, 1]}]}],
    "buffers": [{"name": "x", "binding": 0, "type": "f32", "size": "n", "role": "input"},
                {"name": "y", "binding": 1, "type": "f32", "size": "n", "role": "output"}],
    "push_constants": [{"name": "n", "value": "n"},
                       {"name": "scale", "value": "1 / sqrt(n)", "type": "f32"},
                       {"name": "shift", "value": "3 - ceil_div(n, 100)", "type": "i32"}],
    "metrics": {"bytes": "8 * n", "flops": "2 * n"},
    "reference": {"expression": "y[i] = x[i] / sqrt(n) + 3 - ceil_div(n, 100)", "arrays": {"y": ["n"], "x": ["n"]}},
    "tolerance": {"rel_l2": 1e-6, "max_rel": 1e-6}})json");
}

class SpecTypedPushCli : public testing_support::SpecFolderTest {
 protected:
  SpecTypedPushCli() : SpecFolderTest("vktune_typed_push") {}
  void SetUp() override {
    SpecFolderTest::SetUp();
    std::ofstream(dir_ / "scale.comp") << kShader;
  }
  results::testing::CliRun check(const json& spec, const std::string& device) {
    std::ofstream(dir_ / "scale.json") << spec.dump(2);
    return run_vktune("check " + quoted(dir_ / "scale.json") + " --device " + device, dir_ / "stderr.txt");
  }
};

TEST_F(SpecTypedPushCli, AFloatAndANegativeIntPushedAsExpressionsOfTheShapeCheck) {
  const auto r = check(scale_spec(), "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 failed"), std::string::npos) << r.out;
  // The shift is negative at n = 1000 (3 - 10), so an int pushed as its
  // two's complement is what the reference's value needs.
}

TEST_F(SpecTypedPushCli, AFloatMemberPushedAnIntegerIsRefusedAtLoad) {
  auto spec = scale_spec();
  spec["push_constants"][1].erase("type");
  spec["push_constants"][1]["value"] = "n";  // a whole number, so only its type is wrong
  const auto r = check(spec, "999");  // refused before any device is opened
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("push-constant member at offset 4 is f32, but the spec pushes word 1 as an integer"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace vktune
