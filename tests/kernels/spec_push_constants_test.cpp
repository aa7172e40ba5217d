// A spec's push constants as launch-contract data (kernels/spec/
// spec_push_constants.hpp): every word that is ceil(polynomial / divisor)
// over the shape is fitted, and the fitted words agree with the spec's own
// evaluation at shapes nobody tuned; a word that is not is refused with one
// line where the contract is written, while its variants still plan (and so
// tune); the contract's JSON carries the layout.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "kernels/variant_contract.hpp"
#include "engine/contract_json.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

// A valid spec with the push constants under test.
json spec_with(const json& push_constants) {
  json spec = json::parse(R"({
    "name": "t_push", "shape": ["rows", "n"], "default_shapes": [[4, 256]], "check_shapes": [[1, 37]],
    "subspaces": [{"name": "only", "template": "k.comp", "parameters": [{"name": "WG", "values": [32, 64]}],
                   "local_size": ["WG", 1, 1], "stages": [{"workgroups": ["rows", 1, 1]}]}],
    "buffers": [{"name": "out", "binding": 0, "type": "f32", "size": "rows * n", "role": "output"},
                {"name": "in", "binding": 1, "type": "f32", "size": "rows * n", "role": "input"}],
    "metrics": {"bytes": "8 * rows * n", "flops": "5 * rows * n"},
    "reference": {"op": "softmax", "x": "in", "y": "out", "n": "n"}})");
  if (!push_constants.is_null()) spec["push_constants"] = push_constants;
  return spec;
}

SpecKernel load(const json& spec) {
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    if (path == "k.comp") return std::string("#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n");
    return std::nullopt;
  };
  return SpecKernel(parse_spec(spec.dump(), "my/spec.json", read));
}

json word(const std::string& name, const std::string& value) { return {{"name", name}, {"value", value}}; }

TEST(SpecPushConstants, PolynomialsAndCeilingsAreFittedAndAgreeAtNewShapes) {
  const auto kernel = load(spec_with({word("width", "n"), word("height", "rows"), word("one", "1"),
                                      word("area", "rows * n"), word("quads", "ceil_div(n, 4)"),
                                      word("affine", "2 * n + 3"), word("tiles", "ceil_div(rows * n + 7, 16)"),
                                      word("pairs", "floor((n + 1) / 2)")}));
  const auto& space = kernel.spaces()[0];
  ASSERT_TRUE(space.contract_unfit.empty()) << space.contract_unfit;
  ASSERT_EQ(space.push_constants.size(), 8u);
  // The forms themselves, for the simple words.
  EXPECT_EQ(space.push_constants[0], (PushWord{"width", SizeRule{{SizeTerm{1, {1}}}, 1, 1}}));
  EXPECT_EQ(space.push_constants[2], (PushWord{"one", SizeRule{{SizeTerm{1, {}}}, 1, 1}}));
  EXPECT_EQ(space.push_constants[3], (PushWord{"area", SizeRule{{SizeTerm{1, {0, 1}}}, 1, 1}}));
  EXPECT_EQ(space.push_constants[4], (PushWord{"quads", SizeRule{{SizeTerm{1, {1}}}, 4, 1}}));
  // Shapes no probe and no declared shape is: the values worked out by hand,
  // and the spec's own evaluation (what the harness pushes when it tunes).
  const std::map<Shape, std::vector<std::uint32_t>> expected = {
      {{7, 1001}, {1001, 7, 1, 7007, 251, 2005, 439, 501}},
      {{65535, 2}, {2, 65535, 1, 131070, 1, 7, 8193, 1}},
      {{3, 4096}, {4096, 3, 1, 12288, 1024, 8195, 769, 2048}}};
  for (const auto& [shape, words] : expected) {
    EXPECT_EQ(push_constant_words(space.push_constants, shape), words) << shape_to_string(shape);
    EXPECT_EQ(kernel.plan(kernel.baseline(shape), shape).push_constants, words) << shape_to_string(shape);
  }
}

TEST(SpecPushConstants, TheShapeInOrderIsTheConventionAndCarriesNoLayout) {
  // No push_constants: the spec pushes its dims, as the built-in kernels do.
  EXPECT_TRUE(load(spec_with(json())).spaces()[0].push_constants.empty());
  EXPECT_TRUE(load(spec_with({word("r", "rows"), word("c", "n")})).spaces()[0].push_constants.empty());
  // Swapped, it is a layout of its own.
  const auto swapped = load(spec_with({word("c", "n"), word("r", "rows")}));
  EXPECT_EQ(push_constant_words(swapped.spaces()[0].push_constants, {5, 9}), (std::vector<std::uint32_t>{9, 5}));
}

// A word that is no polynomial travels as its text, where the runtime's
// expressions evaluate it as the spec does at every probe shape.
TEST(SpecPushConstants, AWordThatIsNoPolynomialTravelsAsItsExpression) {
  for (const std::string value : {"min(n, 64)", "n * n", "rows + mod(n, 3)", "floor(sqrt(rows * n))"}) {
    const auto kernel = load(spec_with({word("width", "n"), word("odd", value)}));
    const auto& space = kernel.spaces()[0];
    ASSERT_EQ(space.contract_unfit, "") << value;
    ASSERT_EQ(space.push_constants.size(), 2u) << value;
    EXPECT_EQ(space.push_constants[0].expression, "") << value;  // n is a polynomial
    EXPECT_EQ(space.push_constants[1].expression, value);
    EXPECT_EQ(space.push_constants[1].type, "u32");
    for (const Shape& shape : {Shape{3, 100}, Shape{7, 1001}, Shape{65535, 2}}) {
      EXPECT_EQ(push_constant_words(space.push_constants, shape), kernel.plan(kernel.baseline(shape), shape).push_constants)
          << value << " at " << shape_to_string(shape);
    }
  }
}

// A word the runtime's expressions cannot evaluate as the spec does (a
// function they lack) tunes, but no contract is written for it.
TEST(SpecPushConstants, AWordTheRuntimeCannotEvaluateTunesButGetsNoContract) {
  for (const std::string value : {"is_pow2(n) + 1"}) {
    const auto kernel = load(spec_with({word("width", "n"), word("odd", value)}));
    const auto& space = kernel.spaces()[0];
    const auto& why = space.contract_unfit;
    EXPECT_TRUE(space.push_constants.empty()) << value;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_EQ(why.rfind("my/spec.json: /push_constants/1/value: '" + value + "' is no word the launch contract can carry", 0),
              0u)
        << why;
    // The variants still plan, with the spec's words (so they tune).
    const Shape shape{3, 100};
    const auto config = kernel.baseline(shape);
    EXPECT_EQ(kernel.plan(config, shape).push_constants.size(), 2u);
    EXPECT_EQ(kernel.plan(config, shape).push_constants[0], 100u);
    // The refusal comes where the contract is written.
    try {
      (void)launch_contract(kernel, config, shape);
      ADD_FAILURE() << value << ": a contract was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()), why);
    }
  }
}

TEST(SpecPushConstants, TheContractJsonCarriesTheLayout) {
  const auto kernel = load(spec_with({word("width", "n"), word("height", "rows"), word("quads", "ceil_div(n, 4)")}));
  const Shape shape{3, 100};
  const auto contract = launch_contract(kernel, kernel.baseline(shape), shape);
  const auto j = contract_to_json(contract, {"hash"});
  ASSERT_TRUE(j.contains("push_constants")) << j.dump();
  EXPECT_EQ(j["push_constants"], json::parse(R"([
    {"name": "width", "value": {"terms": [{"coefficient": 1, "dims": [1]}], "divisor": 1}},
    {"name": "height", "value": {"terms": [{"coefficient": 1, "dims": [0]}], "divisor": 1}},
    {"name": "quads", "value": {"terms": [{"coefficient": 1, "dims": [1]}], "divisor": 4}}])"));
  // A kernel that pushes the shape writes no field: its contracts read as before.
  const auto plain = load(spec_with(json()));
  EXPECT_FALSE(contract_to_json(launch_contract(plain, plain.baseline(shape), shape), {"hash"}).contains("push_constants"));
}

}  // namespace
}  // namespace vktune::kernels::spec

namespace vktune::kernels::spec {
namespace {

json typed(const std::string& name, const std::string& value, const std::string& type) {
  return {{"name", name}, {"value", value}, {"type", type}};
}

std::string load_error(const json& spec) {
  try {
    (void)load(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Engines push floats (a softmax's scale, a norm's epsilon, rope's angle
// step) and signed offsets; a float whose value is a function of the shape
// can be written as such, not as the bits of one shape's value.
TEST(SpecPushConstants, TypedWordsArePushedAsTheirTypesBits) {
  const auto kernel = load(spec_with({typed("scale", "1 / sqrt(n)", "f32"), typed("eps", "1e-5", "f32"),
                                      typed("back", "1 - rows", "i32"), typed("n", "n", "u32"), word("rows", "rows")}));
  for (const auto& shape : {Shape{4, 256}, Shape{3, 1000}}) {
    const auto words = kernel.plan(kernel.baseline(shape), shape).push_constants;
    ASSERT_EQ(words.size(), 5u);
    EXPECT_EQ(std::bit_cast<float>(words[0]), static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape[1]))));
    EXPECT_EQ(std::bit_cast<float>(words[1]), 1e-5f);
    EXPECT_EQ(static_cast<std::int32_t>(words[2]), 1 - static_cast<std::int32_t>(shape[0]));
    EXPECT_EQ(words[3], shape[1]);
    EXPECT_EQ(words[4], shape[0]);
  }
  // The contract carries each: the floats and the negative int as their
  // expressions, the others as polynomials; the runtime's evaluation of
  // them gives the tune's bits at shapes nobody tuned.
  const auto& space = kernel.spaces()[0];
  ASSERT_EQ(space.contract_unfit, "");
  ASSERT_EQ(space.push_constants.size(), 5u);
  EXPECT_EQ(space.push_constants[0].expression, "1 / sqrt(n)");
  EXPECT_EQ(space.push_constants[0].type, "f32");
  EXPECT_EQ(space.push_constants[2].type, "i32");
  EXPECT_EQ(space.push_constants[3].expression, "");
  for (const Shape& shape : {Shape{5, 77}, Shape{1000, 3}}) {
    EXPECT_EQ(push_constant_words(space.push_constants, shape), kernel.plan(kernel.baseline(shape), shape).push_constants);
  }
  const auto j = contract_to_json(launch_contract(kernel, kernel.baseline({4, 256}), {4, 256}), {"hash"});
  EXPECT_EQ(j["push_constants"][0], json::parse(R"json({"name": "scale", "expression": "1 / sqrt(n)", "type": "f32"})json"));
  EXPECT_FALSE(j["push_constants"][3].contains("type"));  // u32, written as older tables hold it
  EXPECT_EQ(space.float_push_words, (std::vector<bool>{true, true, false, false, false}));
  // Integer words of either sign type fit as before where their values do.
  const auto ints = load(spec_with({typed("n", "n", "i32"), word("rows", "rows")}));
  EXPECT_EQ(ints.spaces()[0].contract_unfit, "");
  EXPECT_EQ(ints.spaces()[0].float_push_words, (std::vector<bool>{false, false}));
}

TEST(SpecPushConstants, AValueOutsideItsTypeOrAnUnknownTypeIsRefusedAtLoad) {
  EXPECT_NE(load_error(spec_with(json::array({typed("back", "0 - n", "u32")}))).find("is not a 32-bit unsigned integer at shape"),
            std::string::npos);
  EXPECT_NE(load_error(spec_with(json::array({typed("big", "n * 2^24", "i32")}))).find("is not a 32-bit signed integer"),
            std::string::npos);
  EXPECT_NE(load_error(spec_with(json::array({typed("half", "n / 2 + 0.5", "i32")}))).find("is not a 32-bit signed integer"),
            std::string::npos);
  EXPECT_NE(load_error(spec_with(json::array({typed("huge", "n * 1e38", "f32")}))).find("is not a finite 32-bit float"),
            std::string::npos);
  EXPECT_NE(load_error(spec_with(json::array({typed("x", "n", "f64")}))).find("/push_constants/0/type: 'f64' is not a push-constant type"),
            std::string::npos);
  // Up to 64 words (256 bytes) load; the device's limit is a legality rule.
  json many = json::array();
  for (int i = 0; i < 64; ++i) many.push_back(word("w" + std::to_string(i), "n + " + std::to_string(i)));
  const auto kernel = load(spec_with(many));
  EXPECT_EQ(kernel.plan(kernel.baseline({4, 256}), {4, 256}).push_constants.size(), 64u);
  // And the launch contract carries all 64 (the runtime checks the device's
  // maxPushConstantsSize when a lookup gives the device's capabilities).
  EXPECT_EQ(kernel.spaces()[0].contract_unfit, "");
  const auto contract = launch_contract(kernel, kernel.baseline({4, 256}), {4, 256});
  ASSERT_EQ(contract.push_constants.size(), 64u);
  EXPECT_EQ(push_constant_words(contract.push_constants, {4, 300})[63], 300u + 63u);
  many.push_back(word("w64", "n"));
  EXPECT_NE(load_error(spec_with(many)).find("at most 64 push-constant words"), std::string::npos);
}

}  // namespace
}  // namespace vktune::kernels::spec
