// A spec buffer declared with "alias_of" (kernels/spec/spec_buffers.hpp):
// one buffer bound at two binding numbers, as two views of it. Without a
// device: the problem holds one buffer's bytes and marks the alias, the
// launch contract says which binding it takes its buffer from (and says
// nothing for bindings that are no alias, so their JSON is as before), and
// each wrong alias is refused in one line naming its JSON pointer.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "engine/contract_json.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "kernels/variant_contract.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

// y = x + reversed x, x read at binding 0 and again, as its alias x_float, at binding 2.
json alias_spec() {
  return json::parse(R"json({
    "name": "t_alias", "shape": ["n"], "default_shapes": [[4096]], "check_shapes": [[37]],
    "subspaces": [{"name": "only", "template": "k.comp", "parameters": [{"name": "WG", "values": [32, 64]}],
                   "local_size": ["WG", 1, 1], "stages": [{"workgroups": [{"dim": "n", "per_workgroup": "WG"}, 1, 1]}]}],
    "buffers": [{"name": "x", "binding": 0, "type": "f32", "size": "n", "role": "input"},
                {"name": "y", "binding": 1, "type": "f32", "size": "n", "role": "output"},
                {"name": "x_float", "binding": 2, "alias_of": "x"}],
    "metrics": {"bytes": "8 * n", "flops": "n"},
    "reference": {"expression": "y[i] = x[i] + x[n - 1 - i]", "arrays": {"y": ["n"], "x": ["n"]}}})json");
}

SpecKernel load_alias(const json& spec) {
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    if (path == "k.comp") return std::string("#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n");
    return std::nullopt;
  };
  return SpecKernel(parse_spec(spec.dump(), "my/spec.json", read));
}

std::string alias_refusal(const json& spec) {
  try {
    const auto kernel = load_alias(spec);
    for (const auto& shape : kernel.check_shapes()) kernel.make_problem(shape, 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

TEST(SpecAlias, TheProblemHoldsOneBufferAndTheAliasBindsIt) {
  const auto kernel = load_alias(alias_spec());
  const Shape shape{37};
  const auto problem = kernel.make_problem(shape, 5);
  ASSERT_EQ(problem.buffers.size(), 3u);
  EXPECT_EQ(problem.buffers[0].bytes.size(), 4u * 37);
  EXPECT_EQ(problem.buffers[0].alias_of, -1);
  EXPECT_EQ(problem.buffers[2].name, "x_float");
  EXPECT_EQ(problem.buffers[2].alias_of, 0);
  EXPECT_TRUE(problem.buffers[2].bytes.empty());
  EXPECT_EQ(problem.output_index, 1u);
  // The reference reads x once: y[i] = x[i] + x[36 - i], worked out from x's bytes.
  ASSERT_EQ(problem.expected.size(), 37u);
  const auto x = [&](std::size_t i) {
    float v = 0;
    std::memcpy(&v, problem.buffers[0].bytes.data() + 4 * i, 4);
    return static_cast<double>(v);
  };
  EXPECT_DOUBLE_EQ(problem.expected[3], x(3) + x(33));
  EXPECT_EQ(kernel.device_bytes(shape), 2u * 4 * 37);  // x and y, not x twice

  const auto contract = launch_contract(kernel, kernel.baseline(shape), shape);
  ASSERT_EQ(contract.bindings.size(), 3u);
  EXPECT_EQ(contract.bindings[2].alias_of, 0);
  EXPECT_EQ(contract.bindings[2].role, BindingRole::input);
  EXPECT_EQ(contract.bindings[2].size, contract.bindings[0].size);
  const auto j = contract_to_json(contract, {"hash"});
  EXPECT_EQ(j["bindings"][2]["alias_of"], 0) << j["bindings"];
  EXPECT_EQ(j["bindings"][2]["name"], "x_float");
  EXPECT_FALSE(j["bindings"][0].contains("alias_of")) << j["bindings"];
  EXPECT_FALSE(j["bindings"][1].contains("alias_of")) << j["bindings"];
}

TEST(SpecAlias, AWrongAliasIsRefusedInOneLine) {
  const auto with = [](const std::string& pointer, const json& value) {
    auto spec = alias_spec();
    spec[json::json_pointer(pointer)] = value;
    return spec;
  };
  auto of_alias = alias_spec();
  of_alias["buffers"][1] = {{"name", "x_again"}, {"binding", 1}, {"alias_of", "x_float"}};
  auto of_uniform = alias_spec();
  of_uniform["buffers"][0] = json::parse(R"({"name": "x", "binding": 0, "role": "uniform",
                                              "members": [{"name": "n", "type": "u32", "value": "n"}]})");
  auto reads_alias = alias_spec();
  reads_alias["reference"]["expression"] = "y[i] = x_float[i]";
  reads_alias["reference"]["arrays"] = {{"y", {"n"}}, {"x_float", {"n"}}};
  const std::pair<json, std::string> cases[] = {
      {with("/buffers/2/alias_of", "z"), "my/spec.json: /buffers/2/alias_of: no buffer is named 'z'"},
      {with("/buffers/2/alias_of", "x_float"), "my/spec.json: /buffers/2/alias_of: a buffer cannot alias itself"},
      {of_alias, "/buffers/1/alias_of: 'x_float' is itself an alias (of 'x'): alias 'x' instead"},
      {of_uniform, "/buffers/2/alias_of: 'x' is a uniform buffer, which cannot be aliased"},
      {with("/buffers/2/size", "n"),
       "my/spec.json: /buffers/2/size: an alias binds its target's buffer, with the target's size: give it name, "
       "binding and alias_of only"},
      {with("/buffers/2/role", "input"), "/buffers/2/role: an alias binds its target's buffer, with the target's role"},
      {with("/buffers/2/type", "u32"), "/buffers/2/type: an alias binds its target's buffer, with the target's type"},
      {with("/buffers/2/init", json{{"kind", "zeros"}}), "/buffers/2/init: an alias binds its target's buffer"},
      {with("/buffers/2/stride", 4), "/buffers/2/stride: unknown field 'stride'"},
      {with("/buffers/2/alias_of", 3), "/buffers/2/alias_of"},
      {reads_alias, "/reference/arrays/x_float: buffer 'x_float' is an alias of 'x': an expression reads the buffer, 'x'"},
  };
  for (const auto& [spec, line] : cases) {
    const auto refusal = alias_refusal(spec);
    EXPECT_NE(refusal.find(line), std::string::npos) << "want: " << line << "\nhave: " << refusal;
  }
}

}  // namespace
}  // namespace vktune::kernels::spec
