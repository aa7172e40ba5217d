// The kernel spec loader without a device: a valid spec (comments included)
// becomes a kernel whose sizes, push constants, dispatch and reference are
// what the spec says; every malformed spec is one Error(usage) line naming
// the file, the field as a JSON pointer and the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "reference/fp16.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

const char* kTemplate = "#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n";

// A small valid spec, as text with both kinds of comments.
const char* kValid = R"(// a spec with comments
{
  "name": "t_softmax", /* block comment */
  "shape": ["rows", "n"],
  "default_shapes": [[4, 256]],
  "check_shapes": [[1, 37], [3, 100]],
  "subspaces": [{
    "name": "only",
    "template": "k.comp",
    "parameters": [{"name": "WG", "values": [32, 64]}, {"name": "ITEMS", "values": [1, 2]}],
    "local_size": ["WG", 1, 1],
    "legality": [{"rule": "WG <= max_invocations", "reason": "too wide"}],
    "pruning": [{"name": "wide", "rule": "WG * ITEMS > 2 * n", "reason": "idle lanes"}],
    "stages": [{"workgroups": [{"dim": "rows", "per_workgroup": "1"}, 1, 1]}]
  }],
  "buffers": [
    {"name": "out", "binding": 0, "type": "f32", "size": "rows * n", "role": "output"},
    {"name": "in", "binding": 1, "type": "f32", "size": "rows * n", "role": "input",
     "init": {"kind": "uniform", "min": -4, "max": 4}}
  ],
  "push_constants": [{"name": "width", "value": "n"}, {"name": "height", "value": "rows"}, {"name": "one", "value": 1}],
  "metrics": {"bytes": "8 * rows * n", "flops": "5 * rows * n"},
  "reference": {"op": "softmax", "x": "in", "y": "out", "n": "n"}
})";

json valid_json() { return json::parse(kValid, nullptr, true, true); }

FileReader reader(std::map<std::string, std::string> files = {{"k.comp", kTemplate}}) {
  return [files](const std::string& path) -> std::optional<std::string> {
    const auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

// The one-line message a malformed spec gives; fails the test when it loads.
std::string error_of(const std::string& text, const FileReader& read = reader()) {
  try {
    SpecKernel kernel(parse_spec(text, "my/spec.json", read));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("my/spec.json: ", 0), 0u) << message;
    return message;
  }
  ADD_FAILURE() << "the spec loaded";
  return {};
}

std::string error_of(const json& spec) { return error_of(spec.dump()); }

void expect_error(const json& spec, const std::string& pointer, const std::string& problem) {
  const auto message = error_of(spec);
  EXPECT_NE(message.find("my/spec.json: " + pointer + ": "), std::string::npos) << message;
  EXPECT_NE(message.find(problem), std::string::npos) << message;
}

// A device with common limits, `invocations` per workgroup and no optional feature.
vk::DeviceInfo plain_device(std::uint32_t invocations) {
  vk::DeviceInfo device;
  device.max_workgroup_invocations = invocations;
  device.max_workgroup_size = {1024, 1024, 64};
  device.max_workgroup_count = {65535, 65535, 65535};
  device.max_push_constants_bytes = 128;
  device.max_shared_memory_bytes = 32768;
  return device;
}

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
  EXPECT_EQ(kernel.constraint_violation({{"WG", 32}, {"ITEMS", 1}}, shape, device), "");
  EXPECT_NE(kernel.constraint_violation({{"WG", 64}, {"ITEMS", 1}}, shape, device).find("too wide"), std::string::npos);
  EXPECT_NE(kernel.constraint_violation({{"WG", 48}, {"ITEMS", 1}}, shape, device), "");  // not a value
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
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device), "");
  device.max_workgroup_count[1] = 78;
  EXPECT_NE(kernel.constraint_violation(config, {3, 100}, device).find("limits"), std::string::npos);
  device.max_workgroup_count[1] = 77;
  device.features.shader_float16 = true;
  EXPECT_NE(kernel.constraint_violation(config, {3, 100}, device).find("features"), std::string::npos);
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
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device),
            "fp16 buffers need storageBuffer16BitAccess (has_storage_16bit == 1)");
  device.features.storage_buffer_16bit = true;
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device), "fp16 arithmetic needs shaderFloat16 (has_float16)");
  device.features.shader_float16 = true;
  EXPECT_EQ(kernel.constraint_violation(config, {3, 100}, device), "");
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

TEST(SpecLoader, MissingFieldsAreNamed) {
  for (const char* field : {"name", "shape", "default_shapes", "subspaces", "buffers", "metrics", "reference"}) {
    auto spec = valid_json();
    spec.erase(field);
    expect_error(spec, std::string("/") + field, "missing field");
  }
  auto spec = valid_json();
  spec["subspaces"][0].erase("stages");
  expect_error(spec, "/subspaces/0/stages", "missing field");
}

TEST(SpecLoader, UnknownTypesRolesFieldsAndOps) {
  auto spec = valid_json();
  spec["buffers"][1]["type"] = "f64";
  expect_error(spec, "/buffers/1/type", "unknown element type 'f64'");
  spec = valid_json();
  spec["buffers"][1]["role"] = "inout";
  expect_error(spec, "/buffers/1/role", "unknown role 'inout'");
  spec = valid_json();
  spec["subspaces"][0]["paramters"] = json::array();
  expect_error(spec, "/subspaces/0/paramters", "unknown field");
  spec = valid_json();
  spec["reference"]["op"] = "fft";
  expect_error(spec, "/reference/op", "unknown reference op 'fft'");
  spec = valid_json();
  spec["buffers"][1]["init"]["kind"] = "ones";
  expect_error(spec, "/buffers/1/init/kind", "unknown init kind");
}

TEST(SpecLoader, ExpressionsThatDoNotParseOrNameUnknownVariables) {
  auto spec = valid_json();
  spec["buffers"][0]["size"] = "rows * * n";
  expect_error(spec, "/buffers/0/size", "is invalid");
  spec = valid_json();
  spec["subspaces"][0]["legality"][0]["rule"] = "WG <= max_invocationz";
  expect_error(spec, "/subspaces/0/legality/0/rule", "max_invocationz");
  spec = valid_json();
  spec["push_constants"][0]["value"] = "WG";  // a parameter: push constants are the shape's
  expect_error(spec, "/push_constants/0/value", "WG");
  spec = valid_json();
  spec["metrics"]["flops"] = "5 * rows * (n";
  expect_error(spec, "/metrics/flops", "is invalid");
}

TEST(SpecLoader, TwoBuffersOnOneBindingAndGaps) {
  auto spec = valid_json();
  spec["buffers"][1]["binding"] = 0;
  expect_error(spec, "/buffers/1/binding", "two buffers on binding 0");
  spec = valid_json();
  spec["buffers"][1]["binding"] = 5;
  expect_error(spec, "/buffers/1/binding", "gap");
  spec = valid_json();
  spec["buffers"][1]["role"] = "output";
  spec["buffers"][1].erase("init");
  expect_error(spec, "/buffers", "exactly one buffer has the role output");
}

TEST(SpecLoader, ATemplateThatDoesNotExist) {
  auto spec = valid_json();
  spec["subspaces"][0]["template"] = "missing.comp";
  expect_error(spec, "/subspaces/0/template", "'missing.comp' does not exist");
  spec["subspaces"][0]["template"] = "../k.comp";
  expect_error(spec, "/subspaces/0/template", "relative path inside");
}

TEST(SpecLoader, SizesThatAreNotPositiveOrOverflowAtADeclaredShape) {
  auto spec = valid_json();
  spec["buffers"][1]["size"] = "rows * n - 40";  // -3 at the check shape 1,37
  expect_error(spec, "/buffers/1/size", "at shape 1,37");
  spec = valid_json();
  spec["default_shapes"] = json::array({json::array({4, 256}), json::array({65536, 65536})});
  expect_error(spec, "/buffers/0/size", "overflows 32-bit indexing at shape 65536,65536");
  spec = valid_json();
  spec["buffers"][1]["size"] = "rows * n / 2";  // 18.5 at 1,37
  expect_error(spec, "/buffers/1/size", "not a whole number");
}

TEST(SpecLoader, AReferenceWhoseOperandSizesDisagreeWithTheBuffers) {
  auto spec = valid_json();
  spec["reference"]["n"] = "n + 1";  // 37 values are not whole rows of 38
  expect_error(spec, "/reference/n", "not whole rows");
  spec = valid_json();
  spec["buffers"][0]["size"] = "rows * n + rows";
  expect_error(spec, "/reference/y", "holds 1028 values but softmax reads the size of x = 1024");
  spec = valid_json();
  spec["reference"]["y"] = "in";
  expect_error(spec, "/reference/y", "the output buffer");
}

TEST(SpecLoader, NestingDeeperThanTheLimit) {
  auto spec = valid_json();
  json deep = 1;
  for (int i = 0; i < kMaxSpecDepth + 4; ++i) deep = json::array({deep});
  spec["$schema"] = deep;
  const auto message = error_of(spec);
  EXPECT_NE(message.find("my/spec.json: /$schema/0/0/0"), std::string::npos) << message;
  EXPECT_NE(message.find("nested deeper than 16 levels"), std::string::npos) << message;
}

TEST(SpecLoader, NotJsonAndNotAnObject) {
  const auto message = error_of(std::string("{\"name\": "));
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  EXPECT_NE(error_of(std::string("[1, 2]")).find("a spec is a JSON object"), std::string::npos);
}

TEST(SpecLoader, SizesTheLaunchContractCannotCarryAreRefused) {
  auto spec = valid_json();
  spec["buffers"].push_back(
      {{"name", "tmp"}, {"binding", 2}, {"type", "f32"}, {"size", "ceil_div(rows * n, 64) * 64"}, {"role", "scratch"}});
  const auto message = error_of(spec);
  EXPECT_NE(message.find("/buffers/2/size"), std::string::npos) << message;
  EXPECT_NE(message.find("polynomials"), std::string::npos) << message;
}

TEST(SpecLoader, DuplicateNamesAndDefinesThatShadowParameters) {
  auto spec = valid_json();
  spec["subspaces"][0]["parameters"][1]["name"] = "WG";
  expect_error(spec, "/subspaces/0/parameters/1/name", "already a name");
  spec = valid_json();
  spec["subspaces"][0]["defines"] = {{"WG", 3}};
  expect_error(spec, "/subspaces/0/defines/WG", "already a name");
  spec = valid_json();
  spec["buffers"][1]["name"] = "out";
  expect_error(spec, "/buffers/1/name", "a second buffer named 'out'");
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

TEST(SpecLoader, AMissingSpecFileIsBadInput) {
  try {
    load_spec("/nonexistent/spec.json");
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/spec.json"), std::string::npos);
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

}  // namespace
}  // namespace vktune::kernels::spec

namespace vktune::kernels::spec {
namespace {

// The elementwise ops, each against its formula written out here.
TEST(SpecLoader, ElementwiseReferenceOps) {
  auto spec = valid_json();
  spec["buffers"] = json::array({{{"name", "out"}, {"binding", 0}, {"type", "f32"}, {"size", "rows * n"}, {"role", "output"}},
                                 {{"name", "a"}, {"binding", 1}, {"type", "f32"}, {"size", "rows * n"}, {"role", "input"}},
                                 {{"name", "b"}, {"binding", 2}, {"type", "f32"}, {"size", "rows * n"}, {"role", "input"}}});
  const Shape shape{2, 50};
  auto floats = [](const HostBuffer& b) {
    std::vector<float> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  };
  spec["reference"] = {{"op", "mul"}, {"a", "a"}, {"b", "b"}, {"y", "out"}};
  auto problem = SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(shape, 3);
  auto a = floats(problem.buffers[1]), b = floats(problem.buffers[2]);
  ASSERT_EQ(problem.expected.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(problem.expected[i], double(a[i]) * b[i]);
  for (const char* op : {"gelu", "gelu_erf"}) {
    spec["reference"] = {{"op", op}, {"x", "a"}, {"y", "out"}};
    problem = SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(shape, 4);
    a = floats(problem.buffers[1]);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double x = a[i];
      const double want = std::string(op) == "gelu"
                              ? 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)))
                              : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      EXPECT_NEAR(problem.expected[i], want, 1e-12) << op << " at " << i;
    }
  }
}

json depthwise_spec();  // below, with its own tests

// A convolution (conv2d) over NHWC buffers with OHWI weights: the
// reference's answer is the convolution written out here, at every size the
// fields map (kernel, stride, a padding of 0 or 1), ReLU6 as a boolean or as
// an expression of the shape, and bad sizes are one line each.
json conv2d_spec() {
  auto spec = valid_json();
  spec["shape"] = json::array({"n", "h", "w", "ci", "co", "r"});
  spec["default_shapes"] = json::array({json::array({2, 5, 4, 3, 2, 1}), json::array({2, 5, 4, 3, 2, 2})});
  spec.erase("check_shapes");
  spec.erase("push_constants");
  spec["subspaces"][0].erase("pruning");
  spec["subspaces"][0]["stages"][0]["workgroups"] = json::array({"co", 1, 1});
  auto buffer = [](const char* name, int binding, const char* size, const char* role) {
    return json{{"name", name}, {"binding", binding}, {"type", "f32"}, {"size", size}, {"role", role}};
  };
  // y sized for kernel 3, stride 2, padding 1: 3 × 2 pixels.
  spec["buffers"] = json::array({buffer("x", 0, "n * h * w * ci", "input"), buffer("wt", 1, "9 * co * ci", "weights"),
                                 buffer("bias", 2, "co", "weights"), buffer("y", 3, "6 * n * co", "output")});
  spec["buffers"][0]["init"] = {{"kind", "uniform"}, {"min", -4}, {"max", 4}};
  spec["metrics"] = {{"bytes", "4 * n * h * w * ci"}, {"flops", "18 * n * ci * co"}};
  spec["reference"] = {{"op", "conv2d"}, {"x", "x"}, {"weight", "wt"}, {"bias", "bias"}, {"y", "y"},
                       {"batch", "n"}, {"height", "h"}, {"width", "w"}, {"in_channels", "ci"},
                       {"out_channels", "co"}, {"kernel", 3}, {"stride", 2}, {"padding", 1}, {"relu6", "r == 2"}};
  return spec;
}

TEST(SpecLoader, Conv2dReferenceOp) {
  auto floats = [](const HostBuffer& b) {
    std::vector<float> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  };
  const int N = 2, H = 5, W = 4, CI = 3, CO = 2, Ho = 3, Wo = 2;
  // ReLU6 from the expression (r == 2) and from a boolean.
  for (const json& relu6 : {json(false), json(true), json("r == 2")}) {
    for (std::uint32_t r : {1u, 2u}) {
      auto spec = conv2d_spec();
      spec["reference"]["relu6"] = relu6;
      const bool clamp = relu6.is_string() ? r == 2 : relu6.get<bool>();
      const auto problem =
          SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(Shape{2, 5, 4, 3, 2, r}, 9);
      const auto x = floats(problem.buffers[0]), w = floats(problem.buffers[1]), b = floats(problem.buffers[2]);
      ASSERT_EQ(problem.expected.size(), std::size_t(N * Ho * Wo * CO));
      bool below_zero = false, above_six = false;
      for (int n = 0; n < N; ++n)
        for (int oy = 0; oy < Ho; ++oy)
          for (int ox = 0; ox < Wo; ++ox)
            for (int co = 0; co < CO; ++co) {
              double v = b[co];
              for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx)
                  for (int ci = 0; ci < CI; ++ci) {
                    const int iy = oy * 2 + ky - 1, ix = ox * 2 + kx - 1;
                    if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                      v += double(x[((n * H + iy) * W + ix) * CI + ci]) * w[((co * 3 + ky) * 3 + kx) * CI + ci];
                    }
                  }
              below_zero |= v < 0, above_six |= v > 6;
              if (clamp) v = std::min(std::max(v, 0.0), 6.0);
              EXPECT_NEAR(problem.expected[((n * Ho + oy) * Wo + ox) * CO + co], v, 1e-12);
            }
      EXPECT_TRUE(below_zero && above_six);  // so that the clamp has something to clamp
    }
  }
  // Kernel 1, padding 0: y[p][co] = b[co] + sum of x[p][ci] * w[co][ci] over the n*h*w pixels.
  auto spec = conv2d_spec();
  spec["buffers"][1]["size"] = "co * ci";
  spec["buffers"][3]["size"] = "n * h * w * co";
  spec["reference"]["kernel"] = 1, spec["reference"]["stride"] = 1, spec["reference"]["padding"] = 0;
  const auto problem =
      SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(Shape{2, 5, 4, 3, 2, 1}, 4);
  const auto x = floats(problem.buffers[0]), w = floats(problem.buffers[1]), b = floats(problem.buffers[2]);
  ASSERT_EQ(problem.expected.size(), std::size_t(N * H * W * CO));
  for (int p = 0; p < N * H * W; ++p)
    for (int co = 0; co < CO; ++co) {
      double v = b[co];
      for (int ci = 0; ci < CI; ++ci) v += double(x[p * CI + ci]) * w[co * CI + ci];
      EXPECT_NEAR(problem.expected[p * CO + co], v, 1e-12);
    }
}

TEST(SpecLoader, Conv2dSizesAndFields) {
  auto spec = conv2d_spec();
  spec["reference"]["padding"] = "r - 2";  // -1 at r = 1
  expect_error(spec, "/reference/padding", "'r - 2' is not a whole number in 0..2^31-1 at shape 2,5,4,3,2,1");
  spec = conv2d_spec();
  spec["reference"]["stride"] = 0;
  expect_error(spec, "/reference/stride", "'0' is not a whole number in 1..2^31-1");
  spec = conv2d_spec();
  spec["reference"]["padding"] = 0, spec["reference"]["kernel"] = 7;  // 7 taps over 5 + 0 rows
  expect_error(spec, "/reference/kernel", "the window is larger than the padded input at shape 2,5,4,3,2,1");
  spec = conv2d_spec();
  spec["buffers"][1]["size"] = "9 * co";
  expect_error(spec, "/reference/weight",
               "buffer 'wt' holds 18 values but conv2d reads out_channels*kernel*kernel*in_channels = 54");
  spec = conv2d_spec();
  spec["reference"]["stride"] = 1;  // 5 × 4 outputs, not 3 × 2
  expect_error(spec, "/reference/y", "buffer 'y' holds 24 values but conv2d reads batch*out_h*out_w*out_channels");
  EXPECT_NE(error_of(spec).find("= 80 at shape 2,5,4,3,2,1"), std::string::npos);
  spec = conv2d_spec();
  spec["reference"]["relu6"] = "k == 2";
  expect_error(spec, "/reference/relu6", "expression 'k == 2' is invalid");
  spec = conv2d_spec();
  spec["reference"].erase("padding");
  expect_error(spec, "/reference", "op conv2d needs size 'padding'");
  // Only conv2d takes relu6 as an expression.
  auto depthwise = depthwise_spec();
  depthwise["reference"]["relu6"] = "s == 2";
  expect_error(depthwise, "/reference/relu6", "expected true or false");
}

// A depthwise 3×3 convolution over NHWC buffers: the reference's answer is
// the convolution written out here, ReLU6 is the field's, and operand sizes,
// strides and fields the op does not take are one line each.
// rope reads its positions from an i32 buffer; each pair turns by
// pos * base^(-2i/head_dim), in either layout (computed here independently).
TEST(SpecLoader, RopeReferenceOp) {
  auto spec = valid_json();
  spec["default_shapes"] = {{2, 12}};
  spec["check_shapes"] = {{3, 8}};
  spec["buffers"] = json::array(
      {{{"name", "out"}, {"binding", 0}, {"type", "f16"}, {"size", "rows * n"}, {"role", "output"}},
       {{"name", "x"}, {"binding", 1}, {"type", "f32"}, {"size", "rows * n"}, {"role", "input"}},
       {{"name", "pos"}, {"binding", 2}, {"type", "i32"}, {"size", "rows"}, {"role", "input"},
        {"init", {{"kind", "uniform"}, {"min", 0}, {"max", 8191}}}}});
  const Shape shape{3, 8};
  for (const bool neox : {false, true}) {
    spec["reference"] = {{"op", "rope"}, {"x", "x"},           {"pos", "pos"},       {"y", "out"},
                         {"head_dim", 4}, {"freq_base", 500000}, {"neox", neox}};
    const auto problem = SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(shape, 5);
    std::vector<float> x(24);
    std::vector<std::int32_t> pos(3);
    std::memcpy(x.data(), problem.buffers[1].bytes.data(), 96);
    std::memcpy(pos.data(), problem.buffers[2].bytes.data(), 12);
    ASSERT_EQ(problem.expected.size(), 24u);
    for (std::size_t t = 0; t < 3; ++t) {
      for (std::size_t head = 0; head < 2; ++head) {
        for (std::size_t i = 0; i < 2; ++i) {
          const std::size_t base = t * 8 + head * 4, ia = base + (neox ? i : 2 * i), ib = base + (neox ? i + 2 : 2 * i + 1);
          const double theta = pos[t] * std::pow(500000.0, -2.0 * i / 4);
          EXPECT_NEAR(problem.expected[ia], x[ia] * std::cos(theta) - x[ib] * std::sin(theta), 1e-9);
          EXPECT_NEAR(problem.expected[ib], x[ia] * std::sin(theta) + x[ib] * std::cos(theta), 1e-9);
        }
      }
    }
  }
  spec["reference"]["head_dim"] = 3;
  expect_error(spec, "/reference/head_dim", "head_dim 3 is not even");
  spec["reference"]["head_dim"] = 4;
  spec["buffers"][2]["type"] = "f32";
  spec["buffers"][2].erase("init");
  expect_error(spec, "/reference/pos", "operand 'pos' of rope reads i32 positions");
}

json depthwise_spec() {
  auto spec = valid_json();
  spec["shape"] = json::array({"n", "h", "w", "c", "s", "ho", "wo"});
  spec["default_shapes"] = json::array({json::array({2, 5, 4, 3, 2, 3, 2}), json::array({1, 3, 4, 5, 1, 3, 4})});
  spec.erase("check_shapes");
  spec.erase("push_constants");
  spec["subspaces"][0].erase("pruning");
  spec["subspaces"][0]["stages"][0]["workgroups"] = json::array({"c", 1, 1});
  auto buffer = [](const char* name, int binding, const char* size, const char* role) {
    return json{{"name", name}, {"binding", binding}, {"type", "f32"}, {"size", size}, {"role", role}};
  };
  spec["buffers"] = json::array({buffer("x", 0, "n * h * w * c", "input"), buffer("wt", 1, "9 * c", "weights"),
                                 buffer("bias", 2, "c", "weights"), buffer("y", 3, "n * ho * wo * c", "output")});
  spec["buffers"][0]["init"] = {{"kind", "uniform"}, {"min", -4}, {"max", 4}};
  spec["metrics"] = {{"bytes", "4 * n * h * w * c"}, {"flops", "18 * n * ho * wo * c"}};
  spec["reference"] = {{"op", "depthwise_conv2d"}, {"x", "x"}, {"weight", "wt"}, {"bias", "bias"}, {"y", "y"},
                       {"batch", "n"}, {"height", "h"}, {"width", "w"}, {"channels", "c"}, {"stride", "s"}};
  return spec;
}

TEST(SpecLoader, DepthwiseConvolutionReferenceOp) {
  auto floats = [](const HostBuffer& b) {
    std::vector<float> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  };
  const Shape shape{2, 5, 4, 3, 2, 3, 2};
  const int H = 5, W = 4, C = 3, S = 2, Ho = 3, Wo = 2;
  for (bool relu6 : {false, true}) {
    auto spec = depthwise_spec();
    spec["reference"]["relu6"] = relu6;
    const auto problem = SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(shape, 9);
    const auto x = floats(problem.buffers[0]), w = floats(problem.buffers[1]), b = floats(problem.buffers[2]);
    ASSERT_EQ(problem.expected.size(), 2u * Ho * Wo * C);
    bool below_zero = false;
    for (int n = 0; n < 2; ++n)
      for (int oy = 0; oy < Ho; ++oy)
        for (int ox = 0; ox < Wo; ++ox)
          for (int c = 0; c < C; ++c) {
            double v = b[c];
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) {
                const int iy = oy * S + ky - 1, ix = ox * S + kx - 1;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                  v += double(x[((n * H + iy) * W + ix) * C + c]) * w[(ky * 3 + kx) * C + c];
                }
              }
            below_zero |= v < 0;
            if (relu6) v = std::min(std::max(v, 0.0), 6.0);
            EXPECT_NEAR(problem.expected[((n * Ho + oy) * Wo + ox) * C + c], v, 1e-12);
          }
    EXPECT_TRUE(below_zero);  // so that relu6's clamp has something to clamp
  }
}

TEST(SpecLoader, DepthwiseConvolutionOperandsStridesAndFields) {
  auto spec = depthwise_spec();
  spec["reference"]["relu6"] = 1;
  expect_error(spec, "/reference/relu6", "expected true or false");
  spec = depthwise_spec();
  spec["reference"]["eps"] = 1e-5;
  expect_error(spec, "/reference/eps", "op depthwise_conv2d takes no field 'eps'");
  spec = depthwise_spec();
  spec["reference"].erase("stride");
  expect_error(spec, "/reference", "op depthwise_conv2d needs size 'stride'");
  spec = depthwise_spec();
  spec["default_shapes"][0] = json::array({1, 7, 7, 2, 3, 3, 3});
  expect_error(spec, "/reference/stride", "stride 3 is not 1 or 2 at shape 1,7,7,2,3,3,3");
  spec = depthwise_spec();
  spec["default_shapes"][0] = json::array({2, 5, 4, 3, 2, 5, 4});  // the stride-1 extents at stride 2
  expect_error(spec, "/reference/y",
               "buffer 'y' holds 120 values but depthwise_conv2d reads batch*out_h*out_w*channels");
  spec = depthwise_spec();
  spec["buffers"][1]["size"] = "8 * c";
  expect_error(spec, "/reference/weight", "holds 24 values but depthwise_conv2d reads 9*channels = 27");
  // MobileNet V2's first depthwise layer: its seven dims multiply past 2^31,
  // no buffer does, and only buffers are indexed.
  spec = depthwise_spec();
  spec["default_shapes"][0] = json::array({1, 112, 112, 32, 1, 112, 112});
  const SpecKernel wide(parse_spec(spec.dump(), "my/spec.json", reader()));
  EXPECT_NO_THROW(wide.validate_shape({1, 112, 112, 32, 1, 112, 112}));
  auto softmax = valid_json();
  softmax["reference"]["relu6"] = true;
  expect_error(softmax, "/reference/relu6", "op softmax takes no field 'relu6'");
}

}  // namespace
}  // namespace vktune::kernels::spec
