// The spec loader's reference ops whose answers are computed here
// independently: the elementwise ops, conv2d, rope and depthwise_conv2d, each
// with its operand sizes, fields and bad inputs (one line each).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "reference/fp16.hpp"
#include "reference/ops.hpp"
#include "spec_test_support.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;
using namespace spec_test;

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
