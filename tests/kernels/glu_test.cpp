// matmul_q4k_glu (kernels/quant_matmul_epilogue.hpp, Epilogue::glu): gate
// and up with their rows interleaved, storing silu(gate)·up. Without a
// device: y's binding and buffer are half the rows', the expected values
// are recomputed here from the problem's own x and W, and only the pair
// stores serve it. On the test device: the baseline and 8-bit-activation
// variants pass at both check shapes, and fail where the reference pairs
// the rows the other way round (up's SwiGLU of gate) - so the template
// reads row 2i as the gate - each error printed against the tolerance it
// is judged by (printed seed).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "reference/matmul.hpp"
#include "reference/ops.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "engine/template_library.hpp"

namespace vktune {
namespace {

using kernels::Shape;

const char* const kGlu = "matmul_q4k_glu";

TEST(Glu, HalfTheRowsEachTheSwigluOfItsPair) {
  const auto& kernel = kernels::find_kernel(kGlu);
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const std::size_t m = 3, n = 10, k = 512;
  const auto problem = kernel.make_problem({m, n, k}, seed);
  ASSERT_EQ(problem.buffers.size(), 3u);
  EXPECT_EQ(problem.buffers[2].name, "y");
  EXPECT_EQ(problem.buffers[2].bytes.size(), m * n / 2 * 4);
  EXPECT_EQ(kernel.spaces().front().bindings[2].size.bytes({m, n, k}), m * n / 2 * 4);
  std::vector<float> x(m * k);
  std::memcpy(x.data(), problem.buffers[0].bytes.data(), x.size() * 4);
  const auto y = ref::matmul_quantized(x.data(), m, problem.buffers[1].bytes.data(), ref::GgmlType::Q4_K, n, k);
  ASSERT_EQ(problem.expected.size(), m * n / 2);
  for (std::size_t r = 0; r < m; ++r) {
    for (std::size_t i = 0; i < n / 2; ++i) {
      const double gate = y[r * n + 2 * i], up = y[r * n + 2 * i + 1];
      const double want = ref::swiglu(std::span<const double>(&gate, 1), std::span<const double>(&up, 1))[0];
      EXPECT_NEAR(problem.expected[r * n / 2 + i], want, 1e-12 * (1 + std::fabs(want))) << r << " " << i;
    }
  }
  // Pairs: N even, and only the dedicated layouts' slot reduction stores them.
  EXPECT_THROW(kernel.validate_shape({1, 11, 256}), Error);
  const auto device = testing_support::h200_like();
  const Shape shape = kernel.check_shapes().front();
  auto config = kernel.baseline(shape);
  EXPECT_TRUE(kernel.constraint_violation(config, shape, device).empty());
  EXPECT_EQ(testing_support::define_value(kernel.stages(config, shape).front(), "Y_GLU"), "1");
  config["SUPER_BLOCK"] = 0;
  config["X_QUANT"] = 0;
  EXPECT_EQ(std::string(kernel.constraint_violation(config, shape, device).rule), "epilogue.pair_template");
}

TEST(GluDevice, PassesAsPairedAndFailsPairedTheOtherWay) {
  vk::Instance instance;
  const auto templates = TemplateLibrary::embedded();
  SilentProgress progress;
  TuneSession session(instance, testing_support::test_device_index(), nullptr, templates, progress);
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto& kernel = kernels::find_kernel(kGlu);
  // Up's SwiGLU of gate: each pair's rows swapped in the reference's W and expected values.
  const testing_support::WrongReference swapped(kernel, [](kernels::Problem& p) {
    const std::size_t m = p.shape[0], n = p.shape[1], k = p.shape[2];
    std::vector<float> x(m * k);
    std::memcpy(x.data(), p.buffers[0].bytes.data(), x.size() * 4);
    const auto y = ref::matmul_quantized(x.data(), m, p.buffers[1].bytes.data(), ref::GgmlType::Q4_K, n, k);
    std::vector<double> gate(m * n / 2), up(m * n / 2);
    for (std::size_t i = 0; i < gate.size(); ++i) gate[i] = y[2 * i + 1], up[i] = y[2 * i];
    p.expected = ref::swiglu(std::span<const double>(gate), std::span<const double>(up));
  });
  for (const auto& shape : kernel.check_shapes()) {
    SCOPED_TRACE(kernels::shape_to_string(shape));
    auto quantized = kernel.baseline(shape);
    quantized["X_QUANT"] = 1;
    quantized["SUPER_BLOCK"] = 1;
    for (const auto& config : {kernel.baseline(shape), quantized}) {
      SCOPED_TRACE(kernels::config_to_string(config));
      const auto right = session.check(kernel, shape, {config}, seed);
      ASSERT_EQ(right.outcomes.size(), 1u);
      const auto& v = right.outcomes[0].validation;
      const auto tolerance = kernel.variant_tolerance(config, shape);
      std::cout << kernels::shape_to_string(shape) << " X_QUANT=" << config.at("X_QUANT") << ": rel_l2 " << v.rel_l2
                << " (tolerance " << tolerance.rel_l2 << "), max_rel " << v.max_rel << " (" << tolerance.max_rel
                << ")\n";
      EXPECT_EQ(right.outcomes[0].status, results::Status::ok) << right.outcomes[0].reason;
      const auto wrong = session.check(swapped, shape, {config}, seed);
      ASSERT_EQ(wrong.outcomes.size(), 1u);
      EXPECT_EQ(wrong.outcomes[0].status, results::Status::wrong_result) << wrong.outcomes[0].reason;
    }
  }
}

}  // namespace
}  // namespace vktune
