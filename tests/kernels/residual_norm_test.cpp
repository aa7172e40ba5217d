// The products that end a block with its residual add and the next block's
// norm (kernels/quant_matmul_epilogue.hpp, Epilogue::residual_norm: the
// _resnorm and _swiglu_resnorm kernels). Without a device: the bindings,
// the problem's two outputs recomputed here from its own buffers, and that
// only the slot reduction serves them; on the test device: variants of each
// kernel with many workgroups a dispatch, each validated three times on the
// same buffers (printed seed), so that a counter the last workgroup leaves
// unreset fails the next launch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "reference/matmul.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

struct ResnormKernel {
  const char* name;
  ref::GgmlType type;
  bool swiglu;
};
const std::vector<ResnormKernel> kKernels{{"matmul_q4k_resnorm", ref::GgmlType::Q4_K, false},
                                          {"matmul_q4k_swiglu_resnorm", ref::GgmlType::Q4_K, true},
                                          {"matmul_q6k_swiglu_resnorm", ref::GgmlType::Q6_K, true}};

std::vector<float> floats_of(const kernels::HostBuffer& b) {
  std::vector<float> v(b.bytes.size() / sizeof(float));
  std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(float));
  return v;
}

TEST(ResidualNorm, TheStreamAddedAndTheNormRecomputedHere) {
  for (const auto& k : kKernels) {
    SCOPED_TRACE(k.name);
    const auto& kernel = kernels::find_kernel(k.name);
    const std::size_t m = 3, n = 7, kk = 512;
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto problem = kernel.make_problem({m, n, kk}, seed);
    const std::vector<std::string> names{"x", "W", "y", "r", "w", "xn", "counter"};
    ASSERT_EQ(problem.buffers.size(), names.size());
    for (std::size_t b = 0; b < names.size(); ++b) EXPECT_EQ(problem.buffers[b].name, names[b]);
    EXPECT_EQ(problem.output_index, 2u);
    EXPECT_EQ(problem.more_outputs, std::vector<std::size_t>{5});
    const auto& bindings = kernel.spaces().front().bindings;
    ASSERT_EQ(bindings.size(), names.size());
    EXPECT_EQ(bindings[6].role, kernels::BindingRole::scratch);
    EXPECT_EQ(bindings[5].role, kernels::BindingRole::output);
    // x: the buffer itself, or silu(gate)·up of its two halves a row.
    auto x = floats_of(problem.buffers[0]);
    if (k.swiglu) {
      std::vector<float> act(m * kk);
      for (std::size_t r = 0; r < m; ++r) {
        for (std::size_t i = 0; i < kk; ++i) {
          const double gate = x[2 * r * kk + i], up = x[(2 * r + 1) * kk + i];
          act[r * kk + i] = static_cast<float>(gate / (1 + std::exp(-gate)) * up);
        }
      }
      x = act;
    }
    ASSERT_EQ(x.size(), m * kk);
    const auto r = floats_of(problem.buffers[3]), g = floats_of(problem.buffers[4]);
    ASSERT_EQ(r.size(), m * n);
    ASSERT_EQ(g.size(), n);
    auto want = ref::matmul_quantized(x.data(), m, problem.buffers[1].bytes.data(), k.type, n, kk);
    for (std::size_t i = 0; i < m * n; ++i) want[i] += r[i];
    for (std::size_t row = 0; row < m; ++row) {
      double squares = 0;
      for (std::size_t i = 0; i < n; ++i) squares += want[row * n + i] * want[row * n + i];
      const double scale = 1 / std::sqrt(squares / n + 1e-5);
      for (std::size_t i = 0; i < n; ++i) want.push_back(want[row * n + i] * scale * g[i]);
    }
    ASSERT_EQ(problem.expected.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(problem.expected[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
    }
  }
}

TEST(ResidualNorm, OnlyTheSlotReductionStoresIt) {
  const auto device = testing_support::h200_like();
  for (const auto& k : kKernels) {
    SCOPED_TRACE(k.name);
    const auto& kernel = kernels::find_kernel(k.name);
    const Shape shape{1, 4096, k.swiglu ? 14336u : 4096u};
    for (const auto& path : kernel.spaces().front().paths) {
      EXPECT_EQ(path.pinned.at("SUPER_BLOCK"), 1) << path.name;
    }
    auto config = kernel.baseline(shape);
    EXPECT_TRUE(kernel.constraint_violation(config, shape, device).empty());
    config["REDUCTION"] = 1;
    EXPECT_EQ(std::string(kernel.constraint_violation(config, shape, device).rule), "epilogue.slot_reduce");
    const auto stages = kernel.stages(kernel.baseline(shape), shape);
    ASSERT_EQ(stages.size(), 1u);
    EXPECT_EQ(testing_support::define_value(stages[0], "Y_RESNORM"), "1");
  }
}

// N = 300 over rows of 2 to 8 a workgroup: 38 to 150 workgroups electing
// the last; M = 3 x rows, each normed on its own.
TEST(ResidualNormDevice, VariantsPassThreeTimesOnTheSameBuffers) {
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto templates = TemplateLibrary::embedded();
  for (const auto& k : kKernels) {
    SCOPED_TRACE(k.name);
    const auto& kernel = kernels::find_kernel(k.name);
    const Shape shape{3, 300, 512};
    const auto problem = kernel.make_problem(shape, seed);
    DeviceProblem on_device(device, problem, 1);
    const auto configs = testing_support::covering_of(kernel, shape, device.info(), [](const Config& c) {
      return c.at("ROWS_PER_WG") >= 2 && c.at("ROWS_PER_WG") <= 8 && c.at("COLS_PER_PASS") <= 2;
    });
    ASSERT_FALSE(configs.empty());
    std::size_t checked = 0;
    for (const auto& config : configs) {
      if (checked == 3) break;
      SCOPED_TRACE(kernels::config_to_string(config));
      auto variant = describe_variant(kernel, config, shape, templates);
      compile_variant(variant, templates);
      VariantRunner runner(device, variant, static_cast<std::uint32_t>(problem.buffers.size()),
                           static_cast<std::uint32_t>(shape.size()));
      for (int launch = 0; launch < 3; ++launch) {
        const auto v = runner.validate(on_device, problem, kernel.variant_tolerance(config, shape));
        EXPECT_TRUE(v.passed) << "launch " << launch << ": " << v.reason;
      }
      ++checked;
    }
    EXPECT_EQ(checked, 3u);
  }
}

}  // namespace
}  // namespace vktune
