// Folded dispatches and typed specialization constants through the built
// vktune on the test device (`vktune check`: every config of the covering
// array against the reference, outputs poisoned and guarded).
//  - Rows folded into y: a row-wise y = 3x + 1 whose F (a parameter, 7 or
//    65,535) caps the workgroups along x; at F = 7 a check shape of 100 rows
//    needs 15 along y. The shader returns at once when handed more than F
//    along x, so a dispatch that ignores the cap fails as surely as one that
//    drops the rows y carries.
//  - A float specialization constant: y = ALPHA * x + (2 - ALPHA_DEF) * x,
//    ALPHA a float constant (values 1, 2) and ALPHA_DEF its twin #define (a
//    legality rule keeps them equal), so the output is 2x whatever ALPHA is
//    and the reference is an expression of the shape alone (a reference may
//    not read parameters). Delivered as an integer's bits (1.4e-45), ALPHA
//    would make it x or 0.
//  - A tuned winner's contract holds the float constant's bits, and
//    `export --format constants` shows it as the float the shader receives
//    (constants-c: its bits, the float beside them).
//  - A uint constant given -1, and a bool given 2, refused at load in one
//    line before any device is opened.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
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

constexpr const char* kRowsShader = R"(#version 450
layout(local_size_x = WG) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint rows; uint n; };
void main() {
  // The fold is the spec's promise: more than F along x is a broken dispatch.
  if (gl_NumWorkGroups.x > F) return;
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  for (uint k = 0; k < ROWS_PER_WG; ++k) {
    const uint row = group * ROWS_PER_WG + k;
    if (row >= rows) return;
    for (uint j = gl_LocalInvocationID.x; j < n; j += WG) y[row * n + j] = 3.0 * x[row * n + j] + 1.0;
  }
}
)";

json rows_spec() {
  return json::parse(R"json({
    "name": "t_fold_rows", "shape": ["rows", "n"], "default_shapes": [[4096, 16]], "check_shapes": [[100, 33], [37, 5]],
    "subspaces": [{"name": "rows", "template": "rows.comp",
                   "parameters": [{"name": "WG", "values": [32, 64]}, {"name": "ROWS_PER_WG", "values": [1, 2]},
                                  {"name": "F", "values": [7, 65535]}],
                   "local_size": ["WG", 1, 1],
                   "stages": [{"workgroups": [{"dim": "rows", "per_workgroup": "ROWS_PER_WG", "fold": "F"}, "folded", 1]}]}],
    "buffers": [{"name": "x", "binding": 0, "type": "f32", "size": "rows * n", "role": "input"},
                {"name": "y", "binding": 1, "type": "f32", "size": "rows * n", "role": "output"}],
    "metrics": {"bytes": "8 * rows * n", "flops": "2 * rows * n"},
    "reference": {"expression": "y[r][j] = 3 * x[r][j] + 1", "arrays": {"y": ["rows", "n"], "x": ["rows", "n"]}},
    "tolerance": {"rel_l2": 1e-6, "max_rel": 1e-6}})json");
}

constexpr const char* kAlphaShader = R"(#version 450
layout(local_size_x = WG) in;
layout(constant_id = 0) const float ALPHA = 1.0;
layout(constant_id = 1) const uint UNUSED_COUNT = 1u;
layout(constant_id = 2) const bool UNUSED_FLAG = false;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = ALPHA * x[i] + float(2 - ALPHA_DEF) * x[i] + float(UNUSED_COUNT - 1u);
  // Read, so that the module keeps the constant, and never true (i < n).
  if (UNUSED_FLAG && i == 0xFFFFFFFFu) y[0] = 0.0;
}
)";

json alpha_spec() {
  return json::parse(R"json({
    "name": "t_float_constant", "shape": ["n"], "default_shapes": [[4096]], "check_shapes": [[1000], [37]],
    "subspaces": [{"name": "flat", "template": "alpha.comp",
                   "parameters": [{"name": "WG", "values": [32, 64]},
                                  {"name": "ALPHA", "values": [1, 2], "constant_id": 0},
                                  {"name": "ALPHA_DEF", "values": [1, 2]},
                                  {"name": "UNUSED_COUNT", "values": [1], "constant_id": 1},
                                  {"name": "UNUSED_FLAG", "values": [0, 1], "constant_id": 2}],
                   "legality": [{"rule": "ALPHA == ALPHA_DEF", "reason": "ALPHA_DEF is ALPHA as a #define"}],
                   "local_size": ["WG", 1, 1], "stages": [{"workgroups": [{"dim": "n", "per_workgroup": "WG"}, 1, 1]}]}],
    "buffers": [{"name": "x", "binding": 0, "type": "f32", "size": "n", "role": "input"},
                {"name": "y", "binding": 1, "type": "f32", "size": "n", "role": "output"}],
    "metrics": {"bytes": "8 * n", "flops": "3 * n"},
    "reference": {"expression": "y[i] = 2 * x[i]", "arrays": {"y": ["n"], "x": ["n"]}},
    "tolerance": {"rel_l2": 1e-6, "max_rel": 1e-6}})json");
}

class SpecFoldCli : public testing_support::SpecFolderTest {
 protected:
  SpecFoldCli() : SpecFolderTest("vktune_fold_cli") {}
  void SetUp() override {
    SpecFolderTest::SetUp();
    std::ofstream(dir_ / "rows.comp") << kRowsShader;
    std::ofstream(dir_ / "alpha.comp") << kAlphaShader;
  }
  // `vktune check` prints its seed (the inputs' randomness) on its last lines.
  results::testing::CliRun check(const json& spec, const std::string& device, const std::string& more = "") {
    std::ofstream(dir_ / "spec.json") << spec.dump(2);
    return run_vktune("check " + quoted(dir_ / "spec.json") + " --device " + device + more, dir_ / "stderr.txt");
  }
};

// Every config (WG x ROWS_PER_WG x F: 8) at both check shapes: F = 7 folds
// both (100 rows: 7 x 15 workgroups; 37 rows: 7 x 6), F = 65,535 neither.
TEST_F(SpecFoldCli, RowsFoldedIntoYCheckAtBothFolds) {
  const auto r = check(rows_spec(), "0", " --variants all");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("t_fold_rows 100,33: 8 variants checked, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16 passed, 0 failed"), std::string::npos) << r.out;
}

// Every legal config (ALPHA = ALPHA_DEF in {1, 2}, WG, UNUSED_FLAG: 8) at both shapes.
TEST_F(SpecFoldCli, AFloatSpecializationConstantChecksAgainstItsReference) {
  const auto r = check(alpha_spec(), "0", " --variants all");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("t_float_constant 1000: 8 variants checked, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16 passed, 0 failed"), std::string::npos) << r.out;
}

// A tuned winner's contract carries the words its pipeline was given: the
// float constant's bits (1.0f is 1065353216), the bool's 0/1, the uint as is.
TEST_F(SpecFoldCli, ATunedWinnersContractCarriesTheFloatConstantsBits) {
  std::ofstream(dir_ / "spec.json") << alpha_spec().dump(2);
  const auto db = dir_ / "t.db";
  const auto tune = run_vktune(quoted(dir_ / "spec.json") + " --device 0 --shape 1000 --budget 8 --db " + quoted(db),
                               dir_ / "stderr.txt");
  ASSERT_EQ(tune.exit_code, 0) << tune.out << tune.err;
  const auto exported = run_vktune("export --db " + quoted(db) + " --format json", dir_ / "stderr.txt");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto table = json::parse(exported.out);
  ASSERT_EQ(table["winners"].size(), 1u) << exported.out;
  const auto& winner = table["winners"][0];
  const auto& constants = winner["contract"]["stages"][0]["specialization"];
  const float alpha = static_cast<float>(winner["config"]["ALPHA"].get<int>());
  EXPECT_EQ(constants["0"].get<std::int64_t>(), std::int64_t{std::bit_cast<std::int32_t>(alpha)}) << constants;
  EXPECT_EQ(constants["1"], 1) << constants;
  EXPECT_EQ(constants["2"], winner["config"]["UNUSED_FLAG"]) << constants;

  // `export --format constants` shows the float constant as the float the
  // shader receives, with the word its VkSpecializationInfo takes beside it.
  const auto spec = " --spec " + quoted(dir_ / "spec.json");
  const auto listed = run_vktune("export --db " + quoted(db) + " --format constants" + spec, dir_ / "stderr.txt");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto stage = json::parse(listed.out)["kernels"][0]["stages"][0];
  ASSERT_TRUE(stage["specialization"]["0"].is_number_float()) << stage;
  EXPECT_EQ(stage["specialization"]["0"].get<double>(), static_cast<double>(alpha)) << stage;
  EXPECT_EQ(stage["specialization_bits"]["0"].get<std::uint32_t>(), std::bit_cast<std::uint32_t>(alpha)) << stage;
  EXPECT_EQ(stage["specialization"]["1"], 1) << stage;
  const auto c = run_vktune("export --db " + quoted(db) + " --format constants-c" + spec, dir_ / "stderr.txt");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  char word[32];
  std::snprintf(word, sizeof word, "{0u, 0x%08xu /* %.1ff */}", std::bit_cast<std::uint32_t>(alpha),
                static_cast<double>(alpha));
  EXPECT_NE(c.out.find(word), std::string::npos) << word << "\n" << c.out;
}

TEST_F(SpecFoldCli, AValueAConstantsTypeCannotHoldIsRefusedAtLoad) {
  auto negative_uint = alpha_spec();
  negative_uint["subspaces"][0]["parameters"][3]["values"] = {1, -1};  // not the baseline: every value is checked
  const auto r = check(negative_uint, "999");  // refused before any device is opened
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("is a uint in the shader and cannot hold -1 (parameter 'UNUSED_COUNT' = -1)"), std::string::npos)
      << r.err;

  auto bool_two = alpha_spec();
  bool_two["subspaces"][0]["parameters"][4]["values"] = {0, 2};
  const auto b = check(bool_two, "999");
  EXPECT_EQ(b.exit_code, 2) << b.out << b.err;
  EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  EXPECT_NE(b.err.find("is a bool (0 or 1) in the shader and cannot hold 2 (parameter 'UNUSED_FLAG' = 2)"),
            std::string::npos)
      << b.err;
}

}  // namespace
}  // namespace vktune
