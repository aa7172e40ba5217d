// A spec's uniform buffer (kernels/spec/spec_uniform.hpp) without a device:
// its members load, their bytes at a shape are the std140 block worked out
// by hand below (offsets and values written out, not computed by the code
// under test), every stage binds it as a uniform buffer, the launch contract
// carries it (the runtime library computing the spec's bytes at random
// shapes) unless a lane is no word it can carry, and each wrong field or
// member is refused in one line naming its JSON pointer.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "engine/contract_json.hpp"
#include "kernels/spec/spec_uniform.hpp"
#include "kernels/variant_contract.hpp"
#include "results/export.hpp"
#include "results/spirv_bytes.hpp"
#include "results/table_format.hpp"
#include "vktune_runtime.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

// A softmax spec with a uniform buffer at binding 2 that uses every
// alignment rule: a vec3's 16-byte alignment and the scalar packed after it.
json uniform_spec() {
  return json::parse(R"json({
    "name": "t_uniform", "shape": ["rows", "n"], "default_shapes": [[4, 256]], "check_shapes": [[3, 1000]],
    "subspaces": [{"name": "only", "template": "k.comp", "parameters": [{"name": "WG", "values": [32, 64]}],
                   "local_size": ["WG", 1, 1], "stages": [{"workgroups": ["rows", 1, 1]}]}],
    "buffers": [{"name": "out", "binding": 0, "type": "f32", "size": "rows * n", "role": "output"},
                {"name": "in", "binding": 1, "type": "f32", "size": "rows * n", "role": "input"},
                {"name": "meta", "binding": 2, "role": "uniform", "members": [
                  {"name": "sizes", "type": "uvec4", "value": ["n", "rows", 1, "1"]},
                  {"name": "scale", "type": "f32", "value": "1 / sqrt(n)"},
                  {"name": "shift", "type": "i32", "value": "rows * n - 5000"},
                  {"name": "pair", "type": "vec2", "value": [0.5, "-n"]},
                  {"name": "dir", "type": "ivec3", "value": ["-rows", 0, "rows"]},
                  {"name": "tail", "type": "u32", "value": "n + 1"}]}],
    "push_constants": [],
    "metrics": {"bytes": "8 * rows * n", "flops": "5 * rows * n"},
    "reference": {"op": "softmax", "x": "in", "y": "out", "n": "n"}})json");
}

SpecKernel load_uniform(const json& spec) {
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    if (path == "k.comp") return std::string("#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n");
    return std::nullopt;
  };
  return SpecKernel(parse_spec(spec.dump(), "my/spec.json", read));
}

// The one line a spec is refused with ("" when it loads and plans at its shapes).
std::string uniform_refusal(const json& spec) {
  try {
    const auto kernel = load_uniform(spec);
    for (const auto& shape : kernel.check_shapes()) kernel.make_problem(shape, 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

std::uint32_t word_at(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  std::uint32_t w = 0;
  std::memcpy(&w, bytes.data() + offset, 4);
  return w;
}

TEST(SpecUniform, TheBlockAtAShapeIsItsStd140Layout) {
  const auto kernel = load_uniform(uniform_spec());
  const Shape shape{3, 1000};
  const auto problem = kernel.make_problem(shape, 7);
  ASSERT_EQ(problem.buffers.size(), 3u);
  const auto& block = problem.buffers[2].bytes;
  // sizes at 0 (16 bytes), scale at 16, shift at 20, pair at 24 (8-aligned),
  // dir at 32 (a vec3 aligns to 16), tail at 44 (in the vec3's fourth lane): 48 bytes.
  ASSERT_EQ(block.size(), 48u);
  EXPECT_EQ(word_at(block, 0), 1000u);
  EXPECT_EQ(word_at(block, 4), 3u);
  EXPECT_EQ(word_at(block, 8), 1u);
  EXPECT_EQ(word_at(block, 12), 1u);
  EXPECT_EQ(word_at(block, 16), std::bit_cast<std::uint32_t>(static_cast<float>(1 / std::sqrt(1000.0))));
  EXPECT_EQ(word_at(block, 20), static_cast<std::uint32_t>(-2000));  // 3000 - 5000, two's complement
  EXPECT_EQ(word_at(block, 24), std::bit_cast<std::uint32_t>(0.5f));
  EXPECT_EQ(word_at(block, 28), std::bit_cast<std::uint32_t>(-1000.0f));
  EXPECT_EQ(word_at(block, 32), static_cast<std::uint32_t>(-3));
  EXPECT_EQ(word_at(block, 36), 0u);
  EXPECT_EQ(word_at(block, 40), 3u);
  EXPECT_EQ(word_at(block, 44), 1001u);
  // Host data written for the problem, not poisoned and not rotated for cold-cache timing.
  EXPECT_FALSE(problem.buffers[2].is_output);
  EXPECT_FALSE(problem.buffers[2].is_weights);
  // Every stage binds it as a uniform buffer of its block's bytes.
  const auto plan = kernel.plan(kernel.baseline(shape), shape);
  EXPECT_EQ(plan.uniform_buffers, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 48}}));
  EXPECT_EQ(kernel.device_bytes(shape), 2 * 4 * 3000u + 48u);
}

// A version-2 table of one winner of `kernel` at `shape` with `contract`,
// its stage's SPIR-V a placeholder module: what the runtime library reads.
json table_of(const json& contract, const std::string& kernel, const Shape& shape) {
  const std::vector<std::uint32_t> spirv{0x07230203u, 0x00010000u, 0u, 1u, 0u};
  auto c = contract;
  const auto hash = results::spirv_content_hash(spirv);
  for (auto& stage : c["stages"]) stage["spirv_hash"] = hash;
  const json device = {{"id", 1}, {"vendor_id", 0x10de}, {"device_id", 0x2335}, {"driver_version", 1},
                       {"name", "NVIDIA H200"}, {"device_uuid", ""}, {"ceilings", json::object()}};
  json winner = {{"device", 1}, {"kernel", kernel}, {"shape", shape_to_string(shape)}, {"cache_mode", "cold"},
                 {"variant_hash", "0123456789abcdef"}, {"config", json::object()}, {"contract", c},
                 {"median_ns", 1000.0}, {"gbps", 1.0}, {"gflops", 1.0}, {"rel_l2_error", 0.0}};
  winner["entry_hash"] = results::table_format::entry_hash(device, winner);
  return {{"format", "vktune-table"}, {"version", 2}, {"generator", "test"}, {"devices", json::array({device})},
          {"spirv", {{hash, results::spirv_to_base64(spirv)}}}, {"winners", json::array({winner})}};
}

// The launch contract carries the block (issue 44): each lane a word at its
// offset, polynomials as data and the rest (floats, negatives) as
// expressions; the runtime library, reading the exported contract, computes
// for shapes nobody tuned the bytes the spec's own evaluation (muparser,
// spec_uniform) gives, bit for bit.
TEST(SpecUniform, TheRuntimeComputesTheSpecsBlockFromTheContract) {
  const auto kernel = load_uniform(uniform_spec());
  EXPECT_EQ(kernel.spaces()[0].contract_unfit, "");
  const Shape tuned{4, 256};
  const auto contract = launch_contract(kernel, kernel.baseline(tuned), tuned);
  ASSERT_EQ(contract.bindings.size(), 3u);
  const auto& meta = contract.bindings[2];
  EXPECT_EQ(meta.role, BindingRole::uniform);
  EXPECT_EQ(meta.size.bytes(tuned), 48u);
  ASSERT_EQ(meta.members.size(), 12u);  // every lane: 4 + 1 + 1 + 2 + 3 + 1
  EXPECT_EQ(meta.members[11].offset, 44u);
  const auto j = contract_to_json(contract, {"hash"});
  EXPECT_EQ(j["bindings"][2]["role"], "uniform");
  EXPECT_EQ(j["bindings"][2]["members"][4],
            json::parse(R"json({"name": "scale", "expression": "1 / sqrt(n)", "type": "f32", "offset": 16})json"));
  EXPECT_FALSE(j["bindings"][0].contains("members")) << j["bindings"][0];
  EXPECT_FALSE(j["bindings"][0].contains("alias_of")) << j["bindings"][0];

  const auto table = runtime::Table::from_json_text(table_of(j, "t_uniform", tuned).dump());
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto definition = parse_spec(uniform_spec().dump(), "my/spec.json", [](const std::string&) {
    return std::optional<std::string>("#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n");
  });
  for (int i = 0; i < 20; ++i) {
    const Shape shape{std::uniform_int_distribution<std::uint32_t>(1, 5000)(rng),
                      std::uniform_int_distribution<std::uint32_t>(1, 200000)(rng)};
    SCOPED_TRACE(shape_to_string(shape));
    std::vector<double> values(definition.full_scope.size(), 0.0);
    values[0] = shape[0];
    values[1] = shape[1];
    const auto want = uniform_block(definition, definition.buffers[2], values.data(), shape);
    const auto found = table.lookup({{0x10de, 0x2335, 1, "NVIDIA H200", ""}, "t_uniform", shape});
    ASSERT_EQ(found.uniform_blocks.size(), 3u);
    EXPECT_TRUE(found.uniform_blocks[0].empty());
    EXPECT_EQ(found.uniform_blocks[2], want);
    EXPECT_EQ(found.binding_bytes[2], 48u);
    EXPECT_EQ(found.contract.bindings[2].role, runtime::BindingRole::uniform);
    // vktune's own copy of the runtime's evaluation (kernels::uniform_block_bytes) agrees too.
    EXPECT_EQ(uniform_block_bytes(meta, shape), want);
  }
}

// A lane the runtime's expressions cannot evaluate as the spec does still
// tunes, but no contract carries the spec (as for such a push word).
TEST(SpecUniform, ALaneTheContractCannotCarryTunesButGetsNoContract) {
  auto spec = uniform_spec();
  spec["buffers"][2]["members"][5]["value"] = "is_pow2(n) + 1";
  const auto kernel = load_uniform(spec);
  const auto& why = kernel.spaces()[0].contract_unfit;
  EXPECT_EQ(why.rfind("my/spec.json: /buffers/2/members/5/value: 'is_pow2(n) + 1' is no word the launch contract can carry",
                      0),
            0u)
      << why;
  const Shape shape{4, 256};
  try {
    launch_contract(kernel, kernel.baseline(shape), shape);
    ADD_FAILURE() << "a contract was written";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
}

TEST(SpecUniform, WrongFieldsAndMembersAreRefusedInOneLine) {
  const auto with = [](const std::string& pointer, const json& value) {
    auto spec = uniform_spec();
    spec[json::json_pointer(pointer)] = value;
    return spec;
  };
  const std::pair<json, std::string> cases[] = {
      {with("/buffers/2/size", "16"), "my/spec.json: /buffers/2/size: a uniform buffer has no size"},
      {with("/buffers/2/type", "u32"), "my/spec.json: /buffers/2/type: a uniform buffer has no type"},
      {with("/buffers/2/init", json{{"kind", "zeros"}}), "my/spec.json: /buffers/2/init: a uniform buffer has no init"},
      {with("/buffers/2/members/0/type", "mat4"), "/buffers/2/members/0/type: 'mat4' is not a uniform member type"},
      {with("/buffers/2/members/3/value", json::array({1, 2, 3})),
       "/buffers/2/members/3/value: a vec2 takes an array of 2 expressions"},
      {with("/buffers/2/members/1/value", json::array({1})), "/buffers/2/members/1/value: a f32 takes one expression"},
      {with("/buffers/2/members/5/name", "scale"), "/buffers/2/members/5/name: a second member named 'scale'"},
      {with("/buffers/2/members/2/weight", 1), "/buffers/2/members/2/weight: unknown field 'weight'"},
      {with("/buffers/2/members/0/value/1", "rows - 4"),
       "/buffers/2/members/0/value/1: 'rows - 4' is not a 32-bit unsigned integer at shape 3,1000"},
      {with("/buffers/2/members/2/value", "n / 3"),
       "/buffers/2/members/2/value: 'n / 3' is not a 32-bit signed integer at shape "},
      {with("/buffers/2/members/1/value", "1 / (n - 1000)"),
       "/buffers/2/members/1/value: '1 / (n - 1000)' is not a finite 32-bit float at shape 3,1000"},
      {with("/buffers/2/members/1/value", "k"), "/buffers/2/members/1/value"},
      {with("/buffers/2/members", json::array()), "/buffers/2/members: expected at least 1 entries"},
      {with("/buffers/2/role", "uniforms"), "/buffers/2/role: unknown role 'uniforms' (input, weights, output, "
                                            "scratch, uniform)"},
  };
  for (const auto& [spec, line] : cases) {
    const auto refusal = uniform_refusal(spec);
    EXPECT_NE(refusal.find(line), std::string::npos) << "want: " << line << "\nhave: " << refusal;
  }
  // Past 16 KiB, the least maxUniformBufferRange a device may offer.
  auto large = uniform_spec();
  // 48 bytes, then vec4 after vec4: the 1022nd ends at 48 + 16 * 1022 = 16400.
  for (int i = 0; i < 1030; ++i) {
    large["buffers"][2]["members"].push_back({{"name", "m" + std::to_string(i)}, {"type", "vec4"}, {"value", {0, 0, 0, 0}}});
  }
  EXPECT_NE(uniform_refusal(large).find("/buffers/2/members/1027: the block reaches 16400 bytes, past the 16384"), std::string::npos)
      << uniform_refusal(large);
  // Read as the shape's metadata, not as an array of a reference's expression.
  auto read = uniform_spec();
  read["reference"] = json::parse(R"({"expression": "out[r][c] = in[r][c] + meta[0]",
                                      "arrays": {"out": ["rows", "n"], "in": ["rows", "n"], "meta": [12]}})");
  EXPECT_NE(uniform_refusal(read).find("/reference/arrays/meta: buffer 'meta' is a uniform buffer"), std::string::npos)
      << uniform_refusal(read);
}

}  // namespace
}  // namespace vktune::kernels::spec
