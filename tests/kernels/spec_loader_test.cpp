// The kernel spec loader without a device: a valid spec (comments included)
// becomes a kernel whose sizes, push constants, dispatch and reference are
// what the spec says, and the rules it declares are held to the device.
// The malformed specs, each one Error(usage) line, are
// spec_loader_errors_test.cpp's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "engine/validation.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "kernels/spec/spec_templates.hpp"
#include "reference/fp16.hpp"
#include "reference/ops.hpp"
#include "spec_test_support.hpp"
#include "tuner/covering.hpp"
#include "tuner/space.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;
using namespace spec_test;

TEST(SpecLoader, AValidSpecWithCommentsBecomesAKernel) {
  const SpecKernel kernel(parse_spec(kValid, "my/spec.json", reader()));
  EXPECT_EQ(kernel.name(), "t_softmax");
  EXPECT_EQ(kernel.shape_dims(), (std::vector<std::string>{"rows", "n"}));
  EXPECT_EQ(kernel.check_shapes().size(), 2u);
  const Shape shape{3, 100};
  const auto config = kernel.baseline(shape);
  EXPECT_EQ(config, (Config{{"WG", 32}, {"ITEMS", 1}}));
  const auto plan = kernel.plan(Config{{"WG", 64}, {"ITEMS", 2}}, shape);
  EXPECT_EQ(plan.template_file, "spec/t_softmax/k.comp");
  EXPECT_EQ(plan.local_size, (std::array<std::uint32_t, 3>{64, 1, 1}));
  // The spec's own push-constant layout, not the shape.
  EXPECT_EQ(plan.push_constants, (std::vector<std::uint32_t>{100, 3, 1}));
  EXPECT_EQ(workgroup_counts(plan.dispatch, shape), (std::array<std::uint32_t, 3>{3, 1, 1}));
  // Sizes as the launch contract carries them: 4 bytes per value.
  const auto& bindings = kernel.spaces()[0].bindings;
  ASSERT_EQ(bindings.size(), 2u);
  EXPECT_EQ(bindings[0].name, "out");
  EXPECT_EQ(bindings[0].role, BindingRole::output);
  EXPECT_EQ(bindings[1].size.bytes({3, 100}), 3u * 100u * 4u);
  EXPECT_EQ(kernel.device_bytes(shape), 2u * 3u * 100u * 4u);
  const auto m = kernel.metrics(shape);
  EXPECT_EQ(m.bytes, 8.0 * 300);
  EXPECT_EQ(m.flops, 5.0 * 300);
}

TEST(SpecLoader, ProblemHoldsTheSpecsInputsAndTheReferenceOpsAnswer) {
  const SpecKernel kernel(parse_spec(kValid, "my/spec.json", reader()));
  const Shape shape{3, 100};
  const auto problem = kernel.make_problem(shape, 5);
  ASSERT_EQ(problem.buffers.size(), 2u);
  EXPECT_EQ(problem.output_index, 0u);
  EXPECT_TRUE(problem.buffers[0].is_output);
  std::vector<float> in(300);
  ASSERT_EQ(problem.buffers[1].bytes.size(), in.size() * 4);
  std::memcpy(in.data(), problem.buffers[1].bytes.data(), problem.buffers[1].bytes.size());
  for (float v : in) {
    EXPECT_GE(v, -4.0f);
    EXPECT_LT(v, 4.0f);
  }
  EXPECT_EQ(problem.expected, ref::softmax(in, 100));
  EXPECT_EQ(kernel.make_problem(shape, 5).buffers[1].bytes, problem.buffers[1].bytes);
  EXPECT_NE(kernel.make_problem(shape, 6).buffers[1].bytes, problem.buffers[1].bytes);
}

TEST(SpecLoader, LegalityAndPruningAreTheSpecsExpressions) {
  const SpecKernel kernel(parse_spec(kValid, "my/spec.json", reader()));
  auto device = plain_device(32);
  const Shape shape{3, 100};
  EXPECT_EQ(kernel.constraint_violation({{"WG", 32}, {"ITEMS", 1}}, shape, device).detail, "");
  EXPECT_NE(kernel.constraint_violation({{"WG", 64}, {"ITEMS", 1}}, shape, device).detail.find("too wide"), std::string::npos);
  EXPECT_NE(kernel.constraint_violation({{"WG", 48}, {"ITEMS", 1}}, shape, device).detail, "");  // not a value
  const auto& rule = kernel.spaces()[0].pruning.at(0);
  EXPECT_EQ(rule.name, "only.wide");
  EXPECT_FALSE(rule.prunes({{"WG", 64}, {"ITEMS", 1}}, {1, 37}));  // 64 > 74 is false
  EXPECT_TRUE(rule.prunes({{"WG", 64}, {"ITEMS", 2}}, {1, 37}));   // 128 > 74
}

TEST(SpecLoader, LegalityReadsEachDeviceFactFromTheDevice) {
  auto spec = valid_json();
  spec["subspaces"][0]["legality"] = json::array(
      {{{"rule", "max_invocations == 32 && max_shared_memory == 32768 && max_workgroup_count_y == 77"},
        {"reason", "limits"}},
       {{"rule", "has_int8_dot == 1 && has_float16 == 0 && is_cpu == 1 && max_subgroup_size == 16"},
        {"reason", "features"}}});
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  vk::DeviceInfo device;
  device.device_type = "cpu";
  device.max_workgroup_invocations = 32;
  device.max_workgroup_size = {1024, 1024, 64};
  device.max_workgroup_count = {65535, 77, 65535};
  device.max_push_constants_bytes = 128;
  device.max_shared_memory_bytes = 32768;
  device.max_subgroup_size = 16;
  device.features.integer_dot_product = true;
  const Config config{{"WG", 32}, {"ITEMS", 1}};
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device).detail, "");
  device.max_workgroup_count[1] = 78;
  EXPECT_NE(kernel.constraint_violation(config, {3, 100}, device).detail.find("limits"), std::string::npos);
  device.max_workgroup_count[1] = 77;
  device.features.shader_float16 = true;
  EXPECT_NE(kernel.constraint_violation(config, {3, 100}, device).detail.find("features"), std::string::npos);
}

// 16-bit storage and fp16 arithmetic are device facts a legality rule reads:
// a device without them gets the rule's reason.
TEST(SpecLoader, LegalityNamesTheMissingSixteenBitFeatures) {
  auto spec = valid_json();
  spec["subspaces"][0]["legality"] = json::array(
      {{{"rule", "has_storage_16bit == 1"}, {"reason", "fp16 buffers need storageBuffer16BitAccess"}},
       {{"rule", "has_float16"}, {"reason", "fp16 arithmetic needs shaderFloat16"}}});
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  auto device = plain_device(1024);
  const Config config{{"WG", 32}, {"ITEMS", 1}};
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device).detail,
            "fp16 buffers need storageBuffer16BitAccess (has_storage_16bit == 1)");
  device.features.storage_buffer_16bit = true;
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device).detail, "fp16 arithmetic needs shaderFloat16 (has_float16)");
  device.features.shader_float16 = true;
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device).detail, "");
}

// An f16 output: read back as halves (Problem::output_f16, 2 bytes a value)
// against the double reference over the fp16-rounded inputs; i32 is still no
// output type.
TEST(SpecLoader, AnF16OutputIsReadBackAsHalves) {
  auto spec = valid_json();
  spec["buffers"][0]["type"] = "f16";
  spec["buffers"][1]["type"] = "f16";
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const auto problem = kernel.make_problem({3, 37}, 9);
  EXPECT_TRUE(problem.output_f16);
  EXPECT_EQ(problem.buffers[0].bytes.size(), 3u * 37u * 2u);
  std::vector<float> in(3 * 37);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::uint16_t h = 0;
    std::memcpy(&h, problem.buffers[1].bytes.data() + 2 * i, 2);
    in[i] = ref::fp16_to_fp32(h);
  }
  EXPECT_EQ(problem.expected, ref::softmax(in, 37));
  EXPECT_FALSE(SpecKernel(parse_spec(kValid, "my/spec.json", reader())).make_problem({3, 37}, 9).output_f16);
  spec["buffers"][0]["type"] = "i32";
  expect_error(spec, "/buffers", "the output buffer holds f32 or f16 values");
}

// An input read from a file beside the spec: its bytes, whatever the seed,
// and the reference computed from them; the file's size must fit every
// declared shape, and its contents enter the variant hash's defines.
TEST(SpecLoader, InputsFromAFile) {
  std::vector<float> values(300);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 17) - 8.0f;
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  auto spec = valid_json();
  spec["default_shapes"] = json::array({json::array({3, 100})});
  spec["check_shapes"] = spec["default_shapes"];
  spec["buffers"][1]["init"] = {{"kind", "file"}, {"path", "in.bin"}};
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader({{"k.comp", kTemplate}, {"in.bin", bytes}})));
  const auto a = kernel.make_problem({3, 100}, 1), b = kernel.make_problem({3, 100}, 2);
  EXPECT_EQ(a.buffers[1].bytes, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  EXPECT_EQ(b.buffers[1].bytes, a.buffers[1].bytes);
  EXPECT_EQ(a.expected, ref::softmax(values, 100));

  auto other = bytes;
  other[0] = 1;
  const SpecKernel changed(parse_spec(spec.dump(), "my/spec.json", reader({{"k.comp", kTemplate}, {"in.bin", other}})));
  const Config config{{"WG", 32}, {"ITEMS", 1}};
  EXPECT_NE(kernel.plan(config, {3, 100}).defines, changed.plan(config, {3, 100}).defines);

  try {
    SpecKernel short_file(parse_spec(spec.dump(), "my/spec.json", reader({{"k.comp", kTemplate}, {"in.bin", "abcd"}})));
    ADD_FAILURE() << "a 4-byte file loaded for 1200 bytes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/buffers/1/init/path: the file holds 4 bytes but the buffer takes 1200"),
              std::string::npos) << e.what();
  }
  expect_error(spec, "/buffers/1/init/path", "'in.bin' does not exist");
}

// A template that #defines a name the spec delivers as a define (ITEMS, a
// parameter) fails every variant with "Macro redefined": refused at load,
// naming the line and the fix; guarded by #ifndef (or #if !defined) it loads.
TEST(SpecLoader, ATemplateThatHardCodesADefineIsRefusedWithTheFix) {
  auto spec = valid_json();
  spec["name"] = "t_hard_coded";
  const std::string hard = "#version 450\n#define ITEMS 4\nlayout(local_size_x = WG) in;\nvoid main() {}\n";
  try {
    SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader({{"k.comp", hard}})));
    FAIL() << "a template redefining ITEMS loaded";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(message.find("/subspaces/0/template"), std::string::npos) << message;
    EXPECT_NE(message.find("line 2 of the template #defines ITEMS"), std::string::npos) << message;
    EXPECT_NE(message.find("guard it with #ifndef ITEMS"), std::string::npos) << message;
  }
  // Each under its own spec name: a name's template text is registered once.
  for (const auto& [guard, name] : {std::pair<std::string, std::string>{"#ifndef ITEMS", "t_guarded_ifndef"},
                                    {"#if !defined(ITEMS)", "t_guarded_if"}}) {
    spec["name"] = name;
    const std::string guarded =
        "#version 450\n" + guard + "\n#define ITEMS 4\n#endif\nlayout(local_size_x = WG) in;\nvoid main() {}\n";
    EXPECT_NO_THROW(SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader({{"k.comp", guarded}})))) << guard;
  }
}

// "define": "if_nonzero" delivers a parameter as `#define NAME value` only
// where its value is nonzero, for a template's `#ifdef NAME` switch (issue
// 44: every parameter arrived defined, so each mode had to be its own
// sub-space); any other word is refused.
TEST(SpecLoader, ADefineIfNonzeroIsLeftOutAtZero) {
  auto spec = valid_json();
  spec["name"] = "t_ifdef_switch";
  spec["subspaces"][0]["parameters"].push_back({{"name", "FAST"}, {"values", {0, 1}}, {"define", "if_nonzero"}});
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const Shape shape{3, 100};
  auto defines_of = [&](int fast) {
    auto config = kernel.baseline(shape);
    config["FAST"] = fast;
    std::map<std::string, std::string> defines;
    const auto stages = kernel.stages(config, shape);
    for (const auto& [name, value] : stages.at(0).defines) defines[name] = value;
    return defines;
  };
  EXPECT_EQ(defines_of(0).count("FAST"), 0u);
  EXPECT_EQ(defines_of(0).at("WG"), "32");  // the others as ever
  EXPECT_EQ(defines_of(1).at("FAST"), "1");
  spec["subspaces"][0]["parameters"].back()["define"] = "sometimes";
  expect_error(spec, "/subspaces/0/parameters/2/define", "expected true, false or \"if_nonzero\"");
}

// A stage's "require_full_subgroups" reaches the plan (and so the pipeline's
// flag and the launch contract), and legality holds it to the device: the
// feature offered, local_size x a multiple of the subgroup size it must fill.
TEST(SpecLoader, RequireFullSubgroupsReachesThePlanAndIsHeldToTheDevice) {
  auto spec = valid_json();
  spec["name"] = "t_full_subgroups";
  spec["subspaces"][0]["parameters"].push_back({{"name", "FULL"}, {"values", {0, 1}}});
  spec["subspaces"][0]["parameters"][0]["values"] = {24, 64};
  spec["subspaces"][0]["stages"][0]["require_full_subgroups"] = "FULL";
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const Shape shape{3, 100};
  auto config = kernel.baseline(shape);
  vk::DeviceInfo device;
  device.name = "a GPU";
  device.subgroup_size = device.min_subgroup_size = device.max_subgroup_size = 32;
  device.max_workgroup_size = {1024, 1024, 64};
  device.max_workgroup_invocations = 1024;
  device.max_workgroup_count = {65535, 65535, 65535};
  device.max_shared_memory_bytes = 49152;
  device.max_push_constants_bytes = 128;
  device.features.compute_full_subgroups = true;
  for (const int wg : {24, 64}) {
    config["WG"] = wg;
    config["FULL"] = 0;
    EXPECT_FALSE(kernel.stages(config, shape).at(0).require_full_subgroups);
    EXPECT_EQ(kernel.constraint_violation(config, shape, device).detail, "") << wg;
    config["FULL"] = 1;
    EXPECT_TRUE(kernel.stages(config, shape).at(0).require_full_subgroups);
    const auto violation = kernel.constraint_violation(config, shape, device);
    if (wg == 64) {
      EXPECT_EQ(violation.detail, "");
    } else {  // 24 lanes cannot fill subgroups of 32
      EXPECT_EQ(violation.rule, "subgroup.full") << violation.detail;
      EXPECT_NE(violation.detail.find("local_size_x (24) to be a multiple of the subgroup size 32"), std::string::npos)
          << violation.detail;
    }
  }
  config["WG"] = 64;
  device.features.compute_full_subgroups = false;
  EXPECT_NE(kernel.constraint_violation(config, shape, device).detail.find("does not support computeFullSubgroups"),
            std::string::npos);
}

// A sub-space's "check_covering": "values" makes vktune check's covering
// array take every value of each of its parameters (not every pair), while
// the spec's other sub-spaces keep every pair; any other word is refused.
TEST(SpecLoader, CheckCoveringValuesTakesEveryValueOfItsSubSpaceOnly) {
  auto spec = valid_json();
  auto twin = spec["subspaces"][0];
  twin["parameters"].push_back({{"name", "X"}, {"values", {1, 2, 3, 4}}});
  twin["parameters"].push_back({{"name", "Y"}, {"values", {5, 6, 7, 8}}});
  auto own = twin;
  twin["name"] = "twin";
  twin["check_covering"] = "values";
  own["name"] = "own";
  spec["subspaces"] = json::array({twin, own});
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const auto paths = kernel.spaces()[0].effective_paths();
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].covering_strength, 1u);
  EXPECT_EQ(paths[1].covering_strength, 2u);

  const auto space = enumerate_space(kernel, Shape{3, 100}, plain_device(1024), SpaceScope::full);
  const auto cover = covering_configs(space);
  std::map<int, std::vector<Config>> by_path;
  for (const auto& c : cover) by_path[c.at(kPathParameter)].push_back(c);
  // The twin: as many configs as its widest parameter has values, each value in one.
  EXPECT_EQ(by_path[0].size(), 4u);
  for (const char* name : {"WG", "ITEMS", "X", "Y"}) {
    std::set<int> values;
    for (const auto& c : by_path[0]) values.insert(c.at(name));
    EXPECT_EQ(values.size(), std::string(name) == "X" || std::string(name) == "Y" ? 4u : 2u) << name;
  }
  // The other: every pair, X's with Y's among them (16 at least).
  std::set<std::pair<int, int>> xy;
  for (const auto& c : by_path[1]) xy.insert({c.at("X"), c.at("Y")});
  EXPECT_EQ(xy.size(), 16u);

  spec["subspaces"][0]["check_covering"] = "triples";
  expect_error(spec, "/subspaces/0/check_covering", "must be \"pairs\" or \"values\", not \"triples\"");
}

// 0 is an exact op's tolerance; below 0 bounds nothing.
TEST(SpecLoader, ToleranceZeroIsExactAndNegativeIsRefused) {
  auto spec = valid_json();
  spec["tolerance"] = {{"rel_l2", 0}, {"max_rel", 0}};
  const SpecKernel exact(parse_spec(spec.dump(), "my/spec.json", reader()));
  EXPECT_EQ(exact.tolerance(Shape{3, 100}).rel_l2, 0);
  EXPECT_EQ(exact.tolerance(Shape{3, 100}).max_rel, 0);
  spec["tolerance"] = {{"rel_l2", -1e-6}, {"max_rel", 0}};
  expect_error(spec, "/tolerance", "tolerances must be 0 (an exact op) or positive and finite");
}

// With tolerance 0, one output off by the smallest step fails; equal passes.
TEST(SpecLoader, AZeroToleranceFailsAnyDifference) {
  const std::vector<double> expected{1.0, -2.5, 3.25};
  const kernels::Tolerance exact{0, 0};
  EXPECT_TRUE(compare_output({1.0f, -2.5f, 3.25f}, expected, exact).passed);
  EXPECT_FALSE(compare_output({1.0f, -2.5f, std::nextafter(3.25f, 4.0f)}, expected, exact).passed);
}

TEST(SpecLoader, SeveralSubSpacesAreSelectedByPath) {
  auto spec = valid_json();
  auto second = spec["subspaces"][0];
  second["name"] = "other";
  second["parameters"] = json::array({{{"name", "WG"}, {"values", {128}}}});
  second.erase("pruning");
  spec["subspaces"].push_back(second);
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const auto& space = kernel.spaces()[0];
  ASSERT_EQ(space.paths.size(), 2u);
  EXPECT_EQ(space.paths[1].pinned.at("PATH"), 1);
  EXPECT_EQ(space.paths[1].pinned.at("ITEMS"), 1);  // not read there: pinned at its first value
  const Config other{{"WG", 128}, {"ITEMS", 1}, {"PATH", 1}};
  ASSERT_NE(space.path_of(other), nullptr);
  EXPECT_EQ(space.path_of(other)->name, "other");
  EXPECT_EQ(kernel.plan(other, {3, 100}).local_size[0], 128u);
}

TEST(SpecLoader, TheSpecTextEntersTheDefines) {
  const SpecKernel a(parse_spec(kValid, "my/spec.json", reader()));
  const SpecKernel b(parse_spec(std::string(kValid) + "\n// edited\n", "my/spec.json", reader()));
  const Shape shape{3, 100};
  const auto plan_a = a.plan(a.baseline(shape), shape), plan_b = b.plan(b.baseline(shape), shape);
  EXPECT_NE(plan_a.defines, plan_b.defines);
  // An identifier, never a number: a digest like 07ffb... fails glslang's -D parsing.
  for (const auto& [name, value] : plan_a.defines) {
    if (name == "VKTUNE_SPEC_HASH") {
      EXPECT_TRUE(std::isalpha(static_cast<unsigned char>(value.at(0)))) << value;
    }
  }
}

}  // namespace
}  // namespace vktune::kernels::spec

namespace vktune::kernels::spec {
namespace {

TEST(SpecLoader, ParametersAsSpecializationConstants) {
  auto spec = valid_json();
  spec["subspaces"][0]["parameters"][0]["constant_id"] = 3;                                  // WG: constant only
  spec["subspaces"][0]["parameters"][1]["constant_id"] = 1, spec["subspaces"][0]["parameters"][1]["define"] = true;
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
  const Config config{{"WG", 64}, {"ITEMS", 2}};
  const auto plan = kernel.plan(config, {3, 100});
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> constants{{1, 2}, {3, 64}};  // sorted by id
  EXPECT_EQ(plan.specialization, constants);
  auto defined = [&](const std::string& name) {
    return std::any_of(plan.defines.begin(), plan.defines.end(), [&](const auto& d) { return d.first == name; });
  };
  EXPECT_FALSE(defined("WG"));
  EXPECT_TRUE(defined("ITEMS"));
  EXPECT_EQ(plan.local_size[0], 64u);  // the spec's local_size still states the size, for the limits

  auto twice = valid_json();
  twice["subspaces"][0]["parameters"][0]["constant_id"] = 2;
  twice["subspaces"][0]["parameters"][1]["constant_id"] = 2;
  expect_error(twice, "/subspaces/0/parameters/1/constant_id", "is also WG's");
  auto neither = valid_json();
  neither["subspaces"][0]["parameters"][0]["define"] = false;
  expect_error(neither, "/subspaces/0/parameters/0", "needs a constant_id");
  auto negative = valid_json();
  negative["subspaces"][0]["parameters"][0]["constant_id"] = -1;
  expect_error(negative, "/subspaces/0/parameters/0/constant_id", "");
}

TEST(SpecLoader, ReferencesThatRunOnTheDevice) {
  auto trusted = valid_json();
  trusted["reference"] = {{"config", {{"ITEMS", 2}}}};
  const SpecKernel kernel(parse_spec(trusted.dump(), "my/spec.json", reader()));
  const Shape shape{3, 100};
  EXPECT_TRUE(kernel.make_problem(shape, 1).expected.empty());  // the tuner fills it on the device
  const auto reference = kernel.device_reference(shape);
  ASSERT_TRUE(reference);
  const Config want{{"WG", 32}, {"ITEMS", 2}};  // WG from the sub-space's baseline
  EXPECT_EQ(reference->config, want);
  EXPECT_EQ(reference->stages.size(), 1u);

  auto glsl = valid_json();
  glsl["reference"] = {{"template", "ref.comp"}, {"defines", {{"MODE", 3}}}, {"local_size", {"8", 1, 1}},
                       {"workgroups", {"rows", 1, 1}}};
  const SpecKernel with_kernel(
      parse_spec(glsl.dump(), "my/spec.json", reader({{"k.comp", kTemplate}, {"ref.comp", "#version 450\n"}})));
  const auto stage = with_kernel.device_reference(shape);
  ASSERT_TRUE(stage);
  EXPECT_FALSE(stage->config);
  ASSERT_EQ(stage->stages.size(), 1u);
  EXPECT_EQ(stage->stages[0].local_size[0], 8u);
  EXPECT_EQ(stage->stages[0].dispatch[0].shape_dim, 0);
  EXPECT_EQ(stage->stages[0].push_constants, (std::vector<std::uint32_t>{100, 3, 1}));  // the spec's words
  const std::vector<std::pair<std::string, std::string>> defines{{"MODE", "3"}};
  EXPECT_EQ(stage->stages[0].defines, defines);

  auto unknown = valid_json();
  unknown["reference"] = {{"config", {{"NOPE", 2}}}};
  expect_error(unknown, "/reference/config/NOPE", "is not a parameter of sub-space 'only'");
  auto off_list = valid_json();
  off_list["reference"] = {{"config", {{"ITEMS", 3}}}};
  expect_error(off_list, "/reference/config/ITEMS", "3 is not one of ITEMS's values");
  auto missing = valid_json();
  missing["reference"] = {{"template", "absent.comp"}, {"local_size", {1, 1, 1}}, {"workgroups", {"rows", 1, 1}}};
  expect_error(missing, "/reference/template", "does not exist");
}

// An include is found beside the spec first, then in the include/ folder
// beside the spec's folder (examples/include/conv_types.glsl serves three
// MobileNet specs), and registered under include/ either way.
TEST(SpecLoader, IncludesAreFoundBesideTheSpecThenInTheSharedIncludeFolder) {
  const std::string text = std::string("#version 450\n#include \"loader_test_beside.glsl\"\n") +
                           "#include \"loader_test_shared.glsl\"\n#include \"loader_test_both.glsl\"\n" +
                           "layout(local_size_x = WG) in;\nvoid main() {}\n";
  auto spec = valid_json();
  spec["name"] = "t_includes";  // its own template name: k.comp here is not the other tests' text
  const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json",
                                     reader({{"k.comp", text},
                                             {"loader_test_beside.glsl", "// beside\n"},
                                             {"../include/loader_test_shared.glsl", "// shared\n"},
                                             {"loader_test_both.glsl", "// both, beside\n"},
                                             {"../include/loader_test_both.glsl", "// both, shared\n"}})));
  const auto files = registered_template_files();
  ASSERT_EQ(files.count("include/loader_test_beside.glsl"), 1u);
  ASSERT_EQ(files.count("include/loader_test_shared.glsl"), 1u);
  EXPECT_EQ(files.at("include/loader_test_shared.glsl"), "// shared\n");
  EXPECT_EQ(files.at("include/loader_test_both.glsl"), "// both, beside\n");
}

}  // namespace
}  // namespace vktune::kernels::spec
