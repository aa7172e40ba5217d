// The row-wise and elementwise kernels (rmsnorm, rmsnorm_mul, layernorm,
// softmax, softmax_causal, argmax, swiglu, swiglu_stacked, gelu_tanh, gelu_erf, add): their
// descriptions without a device (shapes, baselines on an H200-like device,
// constraints, metrics, problems), and on the test device (VKTUNE_TEST_DEVICE,
// else 0) every valid variant at every check shape, plus a deliberately wrong
// reference that must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "tuner/space.hpp"
#include "engine/template_library.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using testing_support::h200_like;
using testing_support::test_device_index;
using testing_support::WrongReference;

const std::vector<std::string> kRowKernels = {"rmsnorm", "rmsnorm_mul", "add_rmsnorm_mul", "layernorm",
                                              "softmax", "softmax_causal", "argmax"};
const std::vector<std::string> kElementwiseKernels = {"swiglu", "swiglu_stacked", "gelu_tanh", "gelu_erf", "add"};

std::vector<std::string> all_names() {
  auto names = kRowKernels;
  names.insert(names.end(), kElementwiseKernels.begin(), kElementwiseKernels.end());
  return names;
}
std::vector<float> floats_of(const kernels::HostBuffer& b) {
  std::vector<float> v(b.bytes.size() / sizeof(float));
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

std::string label(const std::string& name, const Shape& shape) { return name + " " + kernels::shape_to_string(shape); }

class RowOps : public ::testing::TestWithParam<std::string> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam()); }
};

// (Wrong dimension counts, zeros, the baseline: kernel_contract_test.cpp.)
TEST_P(RowOps, RejectsShapesPast32BitIndices) {
  const auto dims = kernel().shape_dims().size();
  Shape huge(dims, 1);
  huge[0] = 1u << 20;
  huge.back() = 1u << 12;
  EXPECT_THROW(kernel().validate_shape(huge), Error) << "2^32 elements accepted";
}

TEST_P(RowOps, ConstraintsRejectMissingAndForeignParameters) {
  const auto device = h200_like();
  const Shape shape = kernel().default_shapes().front();
  auto config = kernel().baseline(shape);
  config["SUBGROUP_SIZE"] = 16;  // outside the device's only size
  EXPECT_NE(kernel().constraint_violation(config, shape, device).detail, "");
  config["SUBGROUP_SIZE"] = 32;  // the device's only size: same variant as 0
  EXPECT_NE(kernel().constraint_violation(config, shape, device).detail, "");
  config = kernel().baseline(shape);
  config.erase("VEC");
  EXPECT_NE(kernel().constraint_violation(config, shape, device).detail, "");
  config = kernel().baseline(shape);
  config["UNKNOWN"] = 1;
  EXPECT_NE(kernel().constraint_violation(config, shape, device).detail, "");
}

TEST_P(RowOps, PlanDefinesEveryParameterAndCoversTheShape) {
  for (const auto& shape : kernel().default_shapes()) {
    const auto config = kernel().baseline(shape);
    const auto plan = kernel().plan(config, shape);
    for (const auto& [name, value] : config) {
      const auto it = std::find_if(plan.defines.begin(), plan.defines.end(),
                                   [&](const auto& d) { return d.first == name; });
      ASSERT_NE(it, plan.defines.end()) << name;
      EXPECT_EQ(it->second, std::to_string(value));
    }
    EXPECT_EQ(plan.local_size[0], static_cast<std::uint32_t>(config.at("WG_SIZE")));
    const auto groups = kernels::workgroup_counts(plan.dispatch, shape);
    const std::uint64_t total = std::uint64_t{groups[0]} * groups[1] * groups[2];
    if (std::find(kRowKernels.begin(), kRowKernels.end(), GetParam()) != kRowKernels.end()) {
      // One team per row: rows / ROWS_PER_WG workgroups, rounded up.
      std::uint64_t rows = 1;
      for (std::size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
      EXPECT_EQ(total, rows / static_cast<std::uint64_t>(config.at("ROWS_PER_WG"))) << label(GetParam(), shape);
    } else {
      const std::uint64_t floats = std::uint64_t{shape[0]} * shape[1];
      const auto chunk = static_cast<std::uint64_t>(config.at("WG_SIZE") * config.at("VEC") * config.at("EPT"));
      EXPECT_GE(total * chunk, floats) << label(GetParam(), shape);
    }
  }
}

TEST_P(RowOps, ProblemIsSeededNonZeroAndMatchesItsSizes) {
  const Shape shape = kernel().check_shapes().back();
  const auto a = kernel().make_problem(shape, 11);
  const auto b = kernel().make_problem(shape, 11);
  const auto c = kernel().make_problem(shape, 12);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    bytes += a.buffers[i].bytes.size();
    EXPECT_EQ(a.buffers[i].bytes, b.buffers[i].bytes);
    if (a.buffers[i].is_output || a.buffers[i].name == "scratch") continue;  // argmax's scratch starts zeroed
    const auto values = floats_of(a.buffers[i]);
    EXPECT_EQ(std::count(values.begin(), values.end(), 0.0f), 0) << a.buffers[i].name;
  }
  EXPECT_NE(a.buffers[0].bytes, c.buffers[0].bytes);
  EXPECT_EQ(bytes, kernel().device_bytes(shape));
  EXPECT_TRUE(a.buffers[a.output_index].is_output);
  std::size_t compared = a.buffers[a.output_index].bytes.size(), written = 0;
  for (const auto index : a.more_outputs) compared += a.buffers.at(index).bytes.size();
  for (const auto& buffer : a.buffers) written += buffer.is_output ? buffer.bytes.size() : 0;
  EXPECT_EQ(compared, written) << "every output is compared";
  EXPECT_EQ(compared, a.expected.size() * sizeof(float));
  EXPECT_TRUE(std::all_of(a.expected.begin(), a.expected.end(), [](double v) { return std::isfinite(v); }));
  const auto m = kernel().metrics(shape);
  EXPECT_GT(m.bytes, 0.0);
  EXPECT_LE(m.bytes, static_cast<double>(bytes) + 4);
  EXPECT_GT(m.flops, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Kernels, RowOps, ::testing::ValuesIn(all_names()),
                         [](const auto& info) { return info.param; });

// ---- kernel-specific descriptions ----

TEST(Argmax, RowsHoldRepeatedMaximaAndTheLowestIndexIsExpected) {
  const auto& k = kernels::find_kernel("argmax");
  const auto problem = k.make_problem({6, 1000}, 5);
  const auto x = floats_of(problem.buffers[0]);
  for (std::size_t r = 0; r < 6; ++r) {
    const float* row = x.data() + r * 1000;
    const float top = *std::max_element(row, row + 1000, [](float a, float b) {
      return std::isnan(a) || (!std::isnan(b) && a < b);
    });
    EXPECT_GE(std::count(row, row + 1000, top), 2) << "row " << r << " has no tie";
    const auto first = static_cast<double>(std::find(row, row + 1000, top) - row);
    EXPECT_EQ(problem.expected[r], first);
  }
  EXPECT_EQ(problem.expected[1], 0.0);    // the first element, tied with the last
  EXPECT_EQ(problem.expected[2], 998.0);  // the last two, after a NaN
  EXPECT_EQ(k.tolerance({6, 1000}).rel_l2, 0.0);
}

TEST(SoftmaxCausal, MaskedKeysAreZeroAndQueriesMayNotExceedKeys) {
  const auto& k = kernels::find_kernel("softmax_causal");
  EXPECT_THROW(k.validate_shape({2, 9, 8}), Error);
  const auto problem = k.make_problem({2, 3, 10}, 3);
  // Query 0 of each head sees keys 0..7, query 2 all ten.
  for (std::size_t h = 0; h < 2; ++h) {
    const double* q0 = problem.expected.data() + h * 30;
    EXPECT_EQ(q0[8], 0.0);
    EXPECT_EQ(q0[9], 0.0);
    EXPECT_GT(q0[7], 0.0);
    double sum = 0;
    for (int j = 0; j < 10; ++j) sum += q0[20 + j];
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_GT(q0[29], 0.0);
  }
}

TEST(RmsNorm, FusedWeightIsItsOwnKernelWithAWeightBuffer) {
  const auto plain = kernels::find_kernel("rmsnorm").make_problem({2, 64}, 1);
  const auto fused = kernels::find_kernel("rmsnorm_mul").make_problem({2, 64}, 1);
  EXPECT_EQ(plain.buffers.size(), 2u);
  ASSERT_EQ(fused.buffers.size(), 3u);
  EXPECT_EQ(fused.buffers[1].bytes.size(), 64 * sizeof(float));
  EXPECT_NE(plain.expected, fused.expected);
}

// The residual add's sum is the second output: expected holds the norm of
// the fp32 sum times w, then the sum, recomputed here from the inputs.
TEST(RmsNorm, AddRmsnormMulExpectsTheNormThenTheSum) {
  const std::size_t rows = 3, n = 37;
  const auto p = kernels::find_kernel("add_rmsnorm_mul").make_problem({rows, n}, 5);
  ASSERT_EQ(p.buffers.size(), 5u);
  const auto a = floats_of(p.buffers[0]), b = floats_of(p.buffers[1]), w = floats_of(p.buffers[2]);
  ASSERT_EQ(p.more_outputs, std::vector<std::size_t>{3});
  EXPECT_EQ(p.buffers[3].name, "s");
  EXPECT_EQ(p.output_index, 4u);
  ASSERT_EQ(p.expected.size(), 2 * rows * n);
  for (std::size_t r = 0; r < rows; ++r) {
    double squares = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const float sum = a[r * n + i] + b[r * n + i];
      squares += double{sum} * sum;
      EXPECT_EQ(p.expected[rows * n + r * n + i], sum);
    }
    const double inv = 1 / std::sqrt(squares / n + 1e-5);
    for (std::size_t i = 0; i < n; ++i) {
      const float sum = a[r * n + i] + b[r * n + i];
      EXPECT_NEAR(p.expected[r * n + i], sum * inv * w[i], 1e-12);
    }
  }
}

// Row r of gu holds gate's n values, then up's; y is silu(gate) * up per
// element, recomputed here from gu.
TEST(SwigluStacked, ReadsGateThenUpFromEachRow) {
  const std::size_t rows = 3, n = 8;
  const auto p = kernels::find_kernel("swiglu_stacked").make_problem({rows, n}, 9);
  ASSERT_EQ(p.buffers.size(), 2u);
  const auto gu = floats_of(p.buffers[0]);
  ASSERT_EQ(gu.size(), 2 * rows * n);
  ASSERT_EQ(p.expected.size(), rows * n);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      const double gate = gu[2 * r * n + i], up = gu[(2 * r + 1) * n + i];
      EXPECT_NEAR(p.expected[r * n + i], gate / (1 + std::exp(-gate)) * up, 1e-12) << r << "," << i;
    }
  }
}

// A vector would straddle gate and up where VEC does not divide n.
TEST(SwigluStacked, VecMustDivideTheRow) {
  const auto& k = kernels::find_kernel("swiglu_stacked");
  const auto device = h200_like();
  auto config = k.baseline({4, 1000});
  EXPECT_EQ(config.at("VEC"), 4);
  EXPECT_EQ(k.constraint_violation(config, {4, 1000}, device).detail, "");
  EXPECT_NE(k.constraint_violation(config, {4, 1001}, device).detail.find("straddle"), std::string::npos);
  EXPECT_EQ(k.baseline({4, 1001}).at("VEC"), 1);
  EXPECT_EQ(k.constraint_violation(k.baseline({4, 1001}), {4, 1001}, device).detail, "");
}

// ---- on the device ----

class RowOpsDevice : public testing_support::DeviceSuite<std::string> {};

TEST_P(RowOpsDevice, EveryValidVariantPassesAtEveryCheckShape) {
  const auto failures = testing_support::check_every_variant(*instance_, kernels::find_kernel(GetParam()));
  EXPECT_TRUE(failures.empty()) << failures;
}
TEST_P(RowOpsDevice, AWrongReferenceFails) {
  const WrongReference wrong(kernels::find_kernel(GetParam()));
  const Shape shape = wrong.check_shapes().at(1);
  const auto failures = testing_support::failing_variants(*instance_, wrong, shape, {wrong.baseline(shape)}, 7);
  ASSERT_EQ(failures.size(), 1u);  // the baseline passes against the true reference
  EXPECT_NE(failures[0].find("exceeds"), std::string::npos) << failures[0];
}

// A wrong value in the second output (the sum) fails: every output is compared.
class AddRmsnormDevice : public testing_support::DeviceSuite<int> {};
TEST_F(AddRmsnormDevice, TheSumIsCompared) {
  const WrongReference wrong(kernels::find_kernel("add_rmsnorm_mul"),
                             [](kernels::Problem& p) { p.expected.back() += 1.0; });
  const Shape shape = wrong.check_shapes().at(1);
  const auto failures = testing_support::failing_variants(*instance_, wrong, shape, {wrong.baseline(shape)}, 7);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("exceeds"), std::string::npos) << failures[0];
}

INSTANTIATE_TEST_SUITE_P(Kernels, RowOpsDevice, ::testing::ValuesIn(all_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vktune
