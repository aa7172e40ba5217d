// References without a second kernel, loaded without a device: an
// element-wise expression (a transpose, a bias + GELU, gathers through
// integer buffers, every activation function) and steps of reference ops
// and expressions over temporaries (matmul then GELU, add then rmsnorm),
// each against values computed here independently on fresh random inputs
// (the seed printed); and every malformed one refused at load in one line
// naming the file and the field, or at evaluation naming the read and the
// output element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "reference/fp16.hpp"
#include "reference/matmul.hpp"
#include "spec_test_support.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;
using namespace spec_test;

// A fresh seed per test, printed so that a failure can be replayed.
std::uint64_t fresh_seed() {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  return seed;
}

json buffer(const char* name, int binding, const char* type, const char* size, const char* role) {
  return {{"name", name}, {"binding", binding}, {"type", type}, {"size", size}, {"role", role}};
}

// A spec over rows × cols whose reference is `reference` (buffers: y output
// at 0, x input at 1, then `more`).
json expression_spec(const json& reference, const json& more = json::array()) {
  json spec = {{"name", "t_expr"},
               {"shape", {"rows", "cols"}},
               {"default_shapes", {{33, 17}}},
               {"check_shapes", {{5, 3}}},
               {"subspaces",
                {{{"name", "only"},
                  {"template", "k.comp"},
                  {"parameters", {{{"name", "WG"}, {"values", {32}}}}},
                  {"local_size", {"WG", 1, 1}},
                  {"stages", {{{"workgroups", {"rows", 1, 1}}}}}}}},
               {"buffers", {buffer("y", 0, "f32", "rows * cols", "output"), buffer("x", 1, "f32", "rows * cols", "input")}},
               {"metrics", {{"bytes", "8 * rows * cols"}, {"flops", 0}}},
               {"reference", reference},
               {"tolerance", {{"rel_l2", 0}, {"max_rel", 0}}}};
  for (const auto& b : more) spec["buffers"].push_back(b);
  return spec;
}

json transpose_reference() {
  return {{"expression", "y[c][r] = x[r][c]"}, {"arrays", {{"y", {"cols", "rows"}}, {"x", {"rows", "cols"}}}}};
}

Problem problem_of(const json& spec, const Shape& shape, std::uint64_t seed) {
  return SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())).make_problem(shape, seed);
}

std::vector<float> floats_of(const HostBuffer& b) {
  std::vector<float> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), v.size() * 4);
  return v;
}

TEST(SpecExpressionReference, ATransposeIsExact) {
  const auto seed = fresh_seed();
  const std::size_t rows = 33, cols = 17;
  // x[r][c] and x[r, c] are the same read.
  for (const char* text : {"y[c][r] = x[r][c]", "y[c, r] = x[r, c]"}) {
    auto reference = transpose_reference();
    reference["expression"] = text;
    const auto problem = problem_of(expression_spec(reference), {33, 17}, seed);
    const auto x = floats_of(problem.buffers[1]);
    ASSERT_EQ(problem.expected.size(), rows * cols);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        ASSERT_EQ(problem.expected[c * rows + r], static_cast<double>(x[r * cols + c])) << text << " at " << r << "," << c;
      }
    }
  }
}

TEST(SpecExpressionReference, ABiasAndGeluMatchTheirFormula) {
  const auto seed = fresh_seed();
  const json reference = {{"expression", "y[r][c] = gelu_tanh(x[r][c] + b[c])"},
                          {"arrays", {{"y", {"rows", "cols"}}, {"x", {"rows", "cols"}}, {"b", {"cols"}}}}};
  auto spec = expression_spec(reference, json::array({buffer("b", 2, "f16", "cols", "weights")}));
  spec["buffers"][1]["init"] = {{"kind", "uniform"}, {"min", -4}, {"max", 4}};
  const auto problem = problem_of(spec, {33, 17}, seed);
  const auto x = floats_of(problem.buffers[1]);
  std::vector<double> b(17);
  for (std::size_t c = 0; c < 17; ++c) {
    std::uint16_t h = 0;
    std::memcpy(&h, problem.buffers[2].bytes.data() + 2 * c, 2);
    b[c] = ref::fp16_to_fp32(h);  // the f16 weights as stored
  }
  ASSERT_EQ(problem.expected.size(), 33u * 17u);
  for (std::size_t i = 0; i < problem.expected.size(); ++i) {
    const double v = x[i] + b[i % 17];
    const double want = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    ASSERT_NEAR(problem.expected[i], want, 1e-12) << i;
  }
}

TEST(SpecExpressionReference, ReadsIntegerBuffersAndIndicesThatAreExpressions) {
  const auto seed = fresh_seed();
  // A gather through i32 indices, a u32 and an i8 buffer, and an index
  // computed from the shape: y[r][c] = x[idx[r]][cols - 1 - c] + u[c] - q[c].
  const json reference = {
      {"expression", "y[r][c] = x[idx[r]][cols - 1 - c] + u[c] - q[c]"},
      {"arrays", {{"y", {"rows", "cols"}}, {"x", {"rows", "cols"}}, {"idx", {"rows"}}, {"u", {"cols"}}, {"q", {"cols"}}}}};
  auto index = buffer("idx", 2, "i32", "rows", "input");
  index["init"] = {{"kind", "uniform"}, {"min", 0}, {"max", 32}};
  auto spec = expression_spec(reference, json::array({index, buffer("u", 3, "u32", "cols", "input"),
                                                buffer("q", 4, "i8", "cols", "weights")}));
  const auto problem = problem_of(spec, {33, 17}, seed);
  const auto x = floats_of(problem.buffers[1]);
  std::vector<std::int32_t> idx(33);
  std::vector<std::uint32_t> u(17);
  std::vector<std::int8_t> q(17);
  std::memcpy(idx.data(), problem.buffers[2].bytes.data(), 33 * 4);
  std::memcpy(u.data(), problem.buffers[3].bytes.data(), 17 * 4);
  std::memcpy(q.data(), problem.buffers[4].bytes.data(), 17);
  bool negative_q = false;
  for (std::size_t r = 0; r < 33; ++r) {
    for (std::size_t c = 0; c < 17; ++c) {
      const double want = static_cast<double>(x[idx[r] * 17 + (16 - c)]) + u[c] - q[c];
      ASSERT_EQ(problem.expected[r * 17 + c], want) << r << "," << c;
      negative_q |= q[c] < 0;
    }
  }
  EXPECT_TRUE(negative_q);  // i8 read as signed, not as a byte
}

TEST(SpecExpressionReference, EveryActivationIsItsFormula) {
  const auto seed = fresh_seed();
  const auto relu6 = [](double v) { return std::min(std::max(v, 0.0), 6.0); };
  const auto softplus = [](double v) { return std::log(1.0 + std::exp(v)); };
  const std::vector<std::pair<std::string, std::function<double(double)>>> cases{
      {"gelu_erf", [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }},
      {"erf", [](double v) { return std::erf(v); }},
      {"erfc", [](double v) { return std::erfc(v); }},
      {"sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {"silu", [](double v) { return v / (1.0 + std::exp(-v)); }},
      {"relu", [](double v) { return v > 0 ? v : 0.0; }},
      {"relu6", relu6},
      {"hardsigmoid", [&](double v) { return relu6(v + 3) / 6; }},
      {"hardswish", [&](double v) { return v * relu6(v + 3) / 6; }},
      {"softplus", softplus},
      {"mish", [&](double v) { return v * std::tanh(softplus(v)); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"exp", [](double v) { return std::exp(v); }},
      {"log", [](double v) { return std::log(v + 10); }},  // natural, as muparser's
      {"to_f32", [](double v) { return static_cast<double>(static_cast<float>(v / 3)); }},
      {"to_f16", [](double v) { return double(ref::fp16_to_fp32(ref::fp32_to_fp16(static_cast<float>(v / 3)))); }},
  };
  for (const auto& [name, formula] : cases) {
    const std::string argument = name == "log" ? "x[r][c] + 10" : name.rfind("to_", 0) == 0 ? "x[r][c] / 3" : "x[r][c]";
    json reference = {{"expression", "y[r][c] = " + name + "(" + argument + ")"},
                      {"arrays", {{"y", {"rows", "cols"}}, {"x", {"rows", "cols"}}}}};
    auto spec = expression_spec(reference);
    spec["buffers"][1]["init"] = {{"kind", "uniform"}, {"min", -8}, {"max", 8}};
    const auto problem = problem_of(spec, {5, 3}, seed);
    const auto x = floats_of(problem.buffers[1]);
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_NEAR(problem.expected[i], formula(x[i]), 1e-12 * std::max(1.0, std::abs(formula(x[i])))) << name << " " << x[i];
    }
  }
}

// matmul then GELU (erf form), through a temporary kept in double.
TEST(SpecExpressionReference, StepsComposeAMatmulAndAGelu) {
  const auto seed = fresh_seed();
  auto spec = expression_spec({{"steps",
                          {{{"op", "matmul"}, {"x", "x"}, {"w", "w"}, {"y", "t"}, {"m", "rows"}, {"n", "cols"}, {"k", 7}},
                           {{"expression", "y[i][j] = gelu_erf(t[i][j])"},
                            {"arrays", {{"y", {"rows", "cols"}}, {"t", {"rows", "cols"}}}}}}},
                         {"temporaries", {{"t", "rows * cols"}}}},
                        json::array({buffer("w", 2, "f32", "7 * cols", "weights")}));
  spec["buffers"][1]["size"] = "7 * rows";
  const auto problem = problem_of(spec, {33, 17}, seed);
  const auto x = floats_of(problem.buffers[1]), w = floats_of(problem.buffers[2]);
  ASSERT_EQ(problem.expected.size(), 33u * 17u);
  for (std::size_t i = 0; i < 33; ++i) {
    for (std::size_t j = 0; j < 17; ++j) {
      double t = 0;
      for (std::size_t k = 0; k < 7; ++k) t += double(x[i * 7 + k]) * double(w[j * 7 + k]);
      ASSERT_NEAR(problem.expected[i * 17 + j], 0.5 * t * (1.0 + std::erf(t / std::sqrt(2.0))), 1e-12);
    }
  }
}

// add then rmsnorm with a weight: the sum is not rounded to float between them.
TEST(SpecExpressionReference, StepsComposeAnAddAndAnRmsnorm) {
  const auto seed = fresh_seed();
  auto spec = expression_spec({{"steps",
                          {{{"op", "add"}, {"a", "x"}, {"b", "z"}, {"y", "s"}},
                           {{"op", "rmsnorm"}, {"x", "s"}, {"weight", "g"}, {"y", "y"}, {"n", "cols"}, {"eps", 1e-6}}}},
                         {"temporaries", {{"s", "rows * cols"}}}},
                        json::array({buffer("z", 2, "f32", "rows * cols", "input"), buffer("g", 3, "f32", "cols", "weights")}));
  const auto problem = problem_of(spec, {33, 17}, seed);
  const auto x = floats_of(problem.buffers[1]), z = floats_of(problem.buffers[2]), g = floats_of(problem.buffers[3]);
  for (std::size_t r = 0; r < 33; ++r) {
    double squares = 0;
    for (std::size_t c = 0; c < 17; ++c) squares += (double(x[r * 17 + c]) + z[r * 17 + c]) * (double(x[r * 17 + c]) + z[r * 17 + c]);
    const double inv = 1.0 / std::sqrt(squares / 17 + 1e-6);
    for (std::size_t c = 0; c < 17; ++c) {
      ASSERT_NEAR(problem.expected[r * 17 + c], (double(x[r * 17 + c]) + z[r * 17 + c]) * inv * g[c], 1e-12);
    }
  }
}

// An expression, then a matmul over GGUF weights: the temporary (2x, exact
// in float too) is the matmul's x, the weights dequantized bit-exactly.
TEST(SpecExpressionReference, StepsFeedATemporaryToAQuantizedMatmul) {
  const auto seed = fresh_seed();
  auto spec = expression_spec({{"steps",
                                {{{"expression", "t[i] = 2 * x[i]"}, {"arrays", {{"t", {"32 * rows"}}, {"x", {"32 * rows"}}}}},
                                 {{"op", "matmul"}, {"x", "t"}, {"w", "w"}, {"y", "y"}, {"m", "rows"}, {"n", "cols"}, {"k", 32}}}},
                               {"temporaries", {{"t", "32 * rows"}}}},
                              json::array({buffer("w", 2, "Q8_0", "32 * cols", "weights")}));
  spec["buffers"][1]["size"] = "32 * rows";
  const auto problem = problem_of(spec, {33, 17}, seed);
  auto doubled = floats_of(problem.buffers[1]);
  for (auto& v : doubled) v *= 2;
  const auto want = ref::matmul_quantized(doubled.data(), 33, problem.buffers[2].bytes.data(), ref::GgmlType::Q8_0, 17, 32);
  ASSERT_EQ(problem.expected.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(problem.expected[i], want[i]) << i;
}

// The one-line load error of `reference` (buffers: y, x and `more`).
void expect_refused(const json& reference, const std::string& pointer, const std::string& problem,
                    const json& more = json::array()) {
  SCOPED_TRACE(reference.dump());
  expect_error(expression_spec(reference, more), pointer, problem);
}

TEST(SpecExpressionReference, BadExpressionsAreRefusedAtLoad) {
  auto with = [](const char* text, const json& arrays = {{"y", {"cols", "rows"}}, {"x", {"rows", "cols"}}}) {
    return json{{"expression", text}, {"arrays", arrays}};
  };
  expect_refused(with("y[c][r] = x[r][c] +"), "/reference/expression", "the right side 'x[r][c] +' does not compile");
  expect_refused(with("y[c][r] = x[r][c] * scale"), "/reference/expression", "names it may use: rows, cols, c, r");
  expect_refused(with("y[c][r] = x[r][c]", {{"y", {"cols", "rows"}}, {"q", {"rows", "cols"}}}), "/reference/arrays/q",
                 "no buffer named 'q'");
  expect_refused(with("y[c][r] = x[r][c]", {{"y", {"rows * cols"}}, {"x", {"rows", "cols"}}}), "/reference/expression",
                 "the left side y[...] has 2 indices but /reference/arrays/y declares 1 extent");
  expect_refused(with("y[c][r] = x[r]"), "/reference/expression",
                 "'x[r]' has 1 index but /reference/arrays/x declares 2 extents");
  expect_refused(with("y[c][r] = z[r][c]"), "/reference/expression", "'z[' reads an array that \"arrays\" does not declare");
  expect_refused(with("y[c][r] = x + 1"), "/reference/expression", "'x' is an array: read a value of it with an index");
  expect_refused(with("y[c][r] = x[r][c"), "/reference/expression", "is never closed");
  expect_refused(with("y[c][r] == x[r][c]"), "/reference/expression", "no '=' found");
  expect_refused(with("y[c + 1][r] = x[r][c]"), "/reference/expression", "the left side 'y[c + 1][r]' is not ARRAY[i][j]");
  expect_refused(with("y[c][rows] = x[rows][c]"), "/reference/expression", "index 'rows' is a shape dimension");
  expect_refused(with("y[c][c] = x[c][c]"), "/reference/expression", "names index 'c' twice");
  // The output is what the expression writes: reading it, or writing an input, is refused.
  expect_refused(with("y[c][r] = y[c][r]"), "/reference/expression", "the step reads buffer 'y', which it writes");
  expect_refused(with("x[r][c] = 1", {{"x", {"rows", "cols"}}}), "/reference/expression",
                 "the last step writes the output buffer 'y', not buffer 'x'");
  // Extents whose product is not the buffer's size at a declared shape.
  expect_refused(with("y[c][r] = x[r][c]", {{"y", {"cols", "rows"}}, {"x", {"rows", "cols + 1"}}}),
                 "/reference/arrays/x", "the extents make 33 x 18 = 594 values but buffer 'x' holds 561 at shape 33,17");
  expect_refused(with("y[c][r] = x[r][c]", {{"y", {"cols", "rows"}}, {"x", {"rows", "cols - 17"}}}),
                 "/reference/arrays/x/1", "'cols - 17' is not a whole number in 1..2^31-1 at shape 33,17");
  auto gguf = buffer("w", 2, "Q8_0", "32 * rows", "weights");
  expect_refused(with("y[c][r] = w[r][c]", {{"y", {"cols", "rows"}}, {"w", {"rows", "32"}}}), "/reference/arrays/w",
                 "holds GGUF blocks", json::array({gguf}));
  expect_refused(json{{"expression", "y[c][r] = x[r][c]"}}, "/reference/arrays", "missing field 'arrays'");
  expect_refused(json{{"expression", "y[c][r] = x[r][c]"}, {"arrays", {{"y", {"cols", "rows"}}}}, {"op", "add"}},
                 "/reference/op", "unknown field 'op'");
}

TEST(SpecExpressionReference, BadStepsAreRefusedAtLoad) {
  const json gelu = {{"expression", "y[i] = gelu_tanh(t[i])"}, {"arrays", {{"y", {"rows * cols"}}, {"t", {"rows * cols"}}}}};
  const json add = {{"op", "add"}, {"a", "x"}, {"b", "x"}, {"y", "t"}};
  const json temporaries = {{"t", "rows * cols"}};
  expect_refused({{"steps", {gelu, add}}, {"temporaries", temporaries}}, "/reference/steps/0/expression",
                 "reads temporary 't' before a step writes it");
  expect_refused({{"steps", {add}}, {"temporaries", temporaries}}, "/reference/steps/0/y",
                 "the last step writes the output buffer 'y', not temporary 't'");
  auto to_output = add;
  to_output["y"] = "y";
  expect_refused({{"steps", {to_output, gelu}}, {"temporaries", temporaries}}, "/reference/steps/0/y",
                 "step 0 writes buffer 'y': every step but the last writes a temporary");
  auto unknown = add;
  unknown["b"] = "nope";
  expect_refused({{"steps", {unknown, gelu}}, {"temporaries", temporaries}}, "/reference/steps/0/b",
                 "no buffer or temporary named 'nope'");
  expect_refused({{"steps", {add, gelu}}, {"temporaries", {{"t", "rows * cols - 561"}}}}, "/reference/temporaries/t",
                 "'rows * cols - 561' is not a whole number in 1..2^31-1 at shape 33,17");
  expect_refused({{"steps", {add, gelu}}, {"temporaries", {{"t", "rows"}}}}, "/reference/steps/0/y",
                 "temporary 't' holds 33 values but add reads the size of a = 561 at shape 33,17");
  expect_refused({{"steps", {add, gelu}}, {"temporaries", {{"x", "rows * cols"}}}}, "/reference/temporaries/x",
                 "'x' is a buffer's name");
  expect_refused({{"steps", {add, {{"softmax", 1}}}}, {"temporaries", temporaries}}, "/reference/steps/1",
                 "a step is a reference op");
  expect_refused({{"steps", json::array()}}, "/reference/steps", "expected at least 1 entries");
}

TEST(SpecExpressionReference, AReadOutsideItsArrayStopsTheReferenceNamingIt) {
  auto reference = transpose_reference();
  reference["expression"] = "y[c][r] = x[r][c + 1]";
  const SpecKernel kernel(parse_spec(expression_spec(reference).dump(), "my/spec.json", reader()));
  try {
    kernel.make_problem({33, 17}, 1);
    FAIL() << "the reference ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_STREQ(e.what(),
                 "my/spec.json: /reference/expression: the read x[r][c + 1] is outside x for y[16][0] at shape 33,17: "
                 "its index 2 is 17 (0..16)");
  }
  reference["expression"] = "y[c][r] = x[r / 2][c]";  // r / 2 is not a whole number at odd r
  try {
    SpecKernel(parse_spec(expression_spec(reference).dump(), "my/spec.json", reader())).make_problem({33, 17}, 1);
    FAIL() << "the reference ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("for y[0][1] at shape 33,17: its index 1 is 0.500000, not a whole number"),
              std::string::npos)
        << e.what();
  }
  reference["expression"] = "y[c][r] = log(x[r][c] - 2)";  // x in [-1, 1): NaN everywhere
  try {
    SpecKernel(parse_spec(expression_spec(reference).dump(), "my/spec.json", reader())).make_problem({33, 17}, 1);
    FAIL() << "the reference ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/reference/expression: the right side is "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" for y[0][0] at shape 33,17"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune::kernels::spec
