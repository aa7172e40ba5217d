// matmul_q4k: the kernel's description (shapes, spaces, plans, constraints,
// reference problem) and, on the test device (VKTUNE_TEST_DEVICE, else 0),
// every valid variant of both spaces and the baseline at every check shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "reference/gguf_types.hpp"
#include "reference/matmul.hpp"
#include "tuner/covering.hpp"
#include "tuner/device_problem.hpp"
#include "tuner/evaluator.hpp"
#include "tuner/space.hpp"
#include "tuner/template_library.hpp"
#include "tuner/variant.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using testing_support::h200_like;
using testing_support::test_device_index;

const Kernel& kernel() { return kernels::find_kernel("matmul_q4k"); }
TEST(MatmulQ4K, IsRegisteredWithShapeDims) {
  EXPECT_EQ(kernel().name(), "matmul_q4k");
  EXPECT_EQ(kernel().shape_dims(), (std::vector<std::string>{"M", "N", "K"}));
}

TEST(MatmulQ4K, RejectsKNotMultipleOf256) {
  try {
    kernel().validate_shape({1, 64, 300});
    FAIL() << "K=300 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("K=300 is not a multiple of 256"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(kernel().validate_shape({5, 7, 512}));
}

TEST(MatmulQ4K, DecodeUpToEightRowsPrefillAbove) {
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({1, 64, 256})).name, "decode");
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({8, 64, 256})).name, "decode");
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({9, 64, 256})).name, "prefill");
}

TEST(MatmulQ4K, MetricsCountWeightsInputsOutputs) {
  const auto m = kernel().metrics({2, 8, 512});
  EXPECT_DOUBLE_EQ(m.bytes, 8.0 * 2 * 144 + 2 * 512 * 4 + 2 * 8 * 4);
  EXPECT_DOUBLE_EQ(m.flops, 2.0 * 2 * 8 * 512);
  EXPECT_EQ(kernel().device_bytes({2, 8, 512}), 8u * 2 * 144 + 2 * 512 * 4 + 2 * 8 * 4);
}

TEST(MatmulQ4K, PlansPutNOnXAndMOnY) {
  const Shape decode{3, 4096, 4096};
  auto plan = kernel().plan(kernel().baseline(decode), decode);
  EXPECT_EQ(plan.template_file, "matvec_q4k.comp");
  EXPECT_EQ(plan.dispatch[0].shape_dim, 1);
  EXPECT_EQ(plan.dispatch[1].shape_dim, 0);
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, decode), (std::array<std::uint32_t, 3>{1024, 1, 1}));

  const Shape prefill{512, 14336, 4096};
  plan = kernel().plan(kernel().baseline(prefill), prefill);
  EXPECT_EQ(plan.template_file, "matmul_q4k.comp");
  EXPECT_EQ(plan.local_size, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, prefill), (std::array<std::uint32_t, 3>{224, 8, 1}));
  EXPECT_GT(plan.shared_memory_bytes, 0u);
  // Every parameter but DEQUANT_STAGE, DQ_WG and DQ_RUN (defined on their path only).
  EXPECT_EQ(plan.defines.size(),
            kernel().spaces()[1].parameters.size() - kernels::quant_coopmat::dequant_parameters().size());
}

TEST(MatmulQ4K, ConstraintsRejectWhatTheDeviceCannotRun) {
  auto device = h200_like();
  const Shape decode{1, 4096, 4096};
  auto config = kernel().baseline(decode);
  config["SUBGROUP_SIZE"] = 16;
  EXPECT_NE(kernel().constraint_violation(config, decode, device), "");
  config["SUBGROUP_SIZE"] = 32;  // the device's only size: same as 0
  EXPECT_NE(kernel().constraint_violation(config, decode, device), "");

  const Shape prefill{512, 4096, 4096};
  config = kernel().baseline(prefill);
  config["TILE_M"] = config["TILE_N"] = 128;
  config["TILE_K"] = 128;
  config["THREAD_M"] = config["THREAD_N"] = 8;
  const auto reason = kernel().constraint_violation(config, prefill, device);
  EXPECT_NE(reason.find("shared memory"), std::string::npos) << reason;
  config.erase("TILE_K");
  EXPECT_NE(kernel().constraint_violation(config, prefill, device), "");
}

// USE_COOPMAT=1: see expect_tensor_core_prefill; Q4_K is QTYPE 5 of the
// generic tensor-core template.
TEST(MatmulQ4K, TensorCorePrefillOnlyWhereTheDeviceHasIt) {
  testing_support::expect_tensor_core_prefill(kernel(), {512, 4096, 4096}, 5);
}

TEST(MatmulQ4K, QuantizedActivationsHaveTheirOwnTemplateAndTolerance) {
  auto device = h200_like();
  const Shape decode{1, 4096, 14336};
  auto config = kernel().baseline(decode);
  EXPECT_EQ(config.at("X_QUANT"), 0);
  const auto exact = kernel().variant_tolerance(config, decode);
  EXPECT_EQ(exact.rel_l2, kernel().tolerance(decode).rel_l2);

  config["X_QUANT"] = 1;
  config["ROWS_PER_WG"] = 16;
  config["THREADS_PER_BLOCK"] = 4;
  config["BLOCK_SLOTS"] = 4;
  config["X_SEGMENT"] = 16384;
  EXPECT_EQ(kernel().constraint_violation(config, decode, device), "");
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(plan.template_file, "matvec_q4k_q8.comp");
  EXPECT_GT(plan.shared_memory_bytes, 16384u);  // x as bytes, for the whole row
  // A segment longer than K would only cost shared memory (pruned on every device).
  EXPECT_EQ(kernel().constraint_violation(config, Shape{1, 4096, 4096}, device), "");
  EXPECT_EQ(testing_support::pruned_by(kernel(), config, Shape{1, 4096, 4096}, device), "x_q8.segment-past-k");
  EXPECT_GT(kernel().variant_tolerance(config, decode).rel_l2, exact.rel_l2);

  // Parameters the template does not have are pinned, so no two configs
  // build the same shader.
  auto pinned = config;
  pinned["REDUCTION"] = 1;
  EXPECT_NE(kernel().constraint_violation(pinned, decode, device), "");
  device.features.integer_dot_product = false;
  EXPECT_NE(kernel().constraint_violation(config, decode, device).find("shaderIntegerDotProduct"), std::string::npos);
}

// The valid configs at the default shapes on the H200-like devices, as
// counted at commit 353b8cf (before the rules drawn from H200 measurements
// became pruning rules keyed to NVIDIA): pruning reproduces them exactly,
// and the full space (no pruning) holds every one of them.
TEST(MatmulQ4K, PrunedSpacesAtDefaultShapesAreThoseOfBefore) {
  testing_support::expect_pruned_counts(kernel(), {618, 618, 706, 136, 371});
}

TEST(MatmulQ4K, SampledReferenceForLargeShapes) {
  testing_support::expect_sampled_reference(kernel(), ref::GgmlType::Q4_K);
}

// ---- on the device ----

class MatmulQ4KDevice : public testing_support::ValidatedDeviceSuite<Shape> {
 protected:
  // Compiles (two threads) and validates every config; returns failures.
  std::vector<std::string> run_all(const Shape& shape, const std::vector<Config>& configs) {
    const auto templates = TemplateLibrary::embedded();
    std::vector<CompiledVariant> variants;
    for (const auto& c : configs) variants.push_back(describe_variant(kernel(), c, shape, templates));
    std::vector<std::string> compile_errors(variants.size());
    auto compile_range = [&](std::size_t first, std::size_t step) {
      for (std::size_t i = first; i < variants.size(); i += step) {
        try {
          compile_variant(variants[i], templates);
        } catch (const Error& e) {
          compile_errors[i] = e.what();
        }
      }
    };
    const auto start = std::chrono::steady_clock::now();
    auto other = std::async(std::launch::async, compile_range, 1, 2);
    compile_range(0, 2);
    other.get();
    const auto compiled = std::chrono::steady_clock::now();

    const auto problem = kernel().make_problem(shape, 1234);
    DeviceProblem on_device(*device_, problem, 1);
    std::vector<std::string> failures;
    double worst = 0;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const std::string label = kernels::config_to_string(variants[i].config);
      if (!compile_errors[i].empty()) {
        failures.push_back(label + ": compile: " + compile_errors[i]);
        continue;
      }
      try {
        VariantRunner runner(*device_, variants[i], static_cast<std::uint32_t>(problem.buffers.size()), 3, 2);
        const auto v = runner.validate(on_device, problem, kernel().variant_tolerance(variants[i].config, shape));
        worst = std::max(worst, v.rel_l2);
        if (!v.passed) failures.push_back(label + ": " + v.reason);
      } catch (const Error& e) {
        failures.push_back(label + ": " + e.what());
      }
    }
    const auto done = std::chrono::steady_clock::now();
    const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
    std::cout << "[ shape " << kernels::shape_to_string(shape) << " ] " << variants.size()
              << " variants, worst rel_l2 " << worst << ", compile " << seconds(compiled - start) << " s, validate "
              << seconds(done - compiled) << " s\n";
    return failures;
  }

};


// A pairwise covering array of every legal variant (no pruning), as
// `vktune check --variants covering --space full` (the name keeps
// ci/build-and-test.sh's 'EveryValidVariant' exclusion: the gate validates
// this kernel there).
TEST_P(MatmulQ4KDevice, EveryValidVariantPairCovered) {
  const Shape shape = GetParam();
  const auto configs = covering_configs(enumerate_space(kernel(), shape, device_->info(), SpaceScope::full));
  ASSERT_FALSE(configs.empty());
  const auto failures = run_all(shape, configs);
  std::string text;
  for (const auto& f : failures) text += f + "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << configs.size() << " variants failed:\n" << text;
}

TEST_P(MatmulQ4KDevice, BaselinePasses) {
  const Shape shape = GetParam();
  const auto baseline = kernel().baseline(shape);
  ASSERT_EQ(kernel().constraint_violation(baseline, shape, device_->info()), "");
  const auto failures = run_all(shape, {baseline});
  EXPECT_TRUE(failures.empty()) << failures.front();
}

// X_QUANT=1 quantizes x in segments (4096 values per row when two or more x
// rows share a workgroup); K = 4352 spans two, the second one block long.
// The check shapes keep K small for the gate, so this covers the segment loop,
// with a pairwise covering array of the integer path's configs of 64
// invocations that the H200's pruning keeps (all of them took 21 s with a
// cold shader cache).
TEST_F(MatmulQ4KDevice, QuantizedActivationsAcrossSegments) {
  const Shape shape{2, 9, 4352};
  const auto configs = testing_support::covering_of(kernel(), shape, device_->info(), [&](const Config& c) {
    return c.at("X_QUANT") == 1 && c.at("COLS_PER_PASS") == 2 && c.at("WG_SIZE") == 64 &&
           testing_support::kept_by_h200_pruning(kernel(), c, shape);
  });
  ASSERT_FALSE(configs.empty());
  const auto failures = run_all(shape, configs);
  std::string text;
  for (const auto& f : failures) text += f + "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << configs.size() << " variants failed:\n" << text;
}

// 8-bit activations are an approximation: the error is that of rounding x,
// well above fp32 rounding and well below a wrong scale or nibble.
TEST_F(MatmulQ4KDevice, QuantizedActivationErrorIsThatOfRoundingX) {
  const Shape shape{1, 37, 2048};
  auto config = kernel().baseline(shape);
  config["X_QUANT"] = 1;
  config["ROWS_PER_WG"] = 8;
  config["THREADS_PER_BLOCK"] = 4;
  ASSERT_EQ(kernel().constraint_violation(config, shape, device_->info()), "");
  const auto templates = TemplateLibrary::embedded();
  auto variant = describe_variant(kernel(), config, shape, templates);
  compile_variant(variant, templates);
  const auto problem = kernel().make_problem(shape, 99);
  DeviceProblem on_device(*device_, problem, 1);
  VariantRunner runner(*device_, variant, static_cast<std::uint32_t>(problem.buffers.size()), 3, 2);
  const auto v = runner.validate(on_device, problem, kernel().variant_tolerance(config, shape));
  EXPECT_TRUE(v.passed) << v.reason;
  EXPECT_GT(v.rel_l2, 1e-3);
  EXPECT_LT(v.rel_l2, 1e-2);
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  std::string name;
  for (auto d : info.param) name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

INSTANTIATE_TEST_SUITE_P(CheckShapes, MatmulQ4KDevice, ::testing::ValuesIn(kernel().check_shapes()), shape_name);

}  // namespace
}  // namespace vktune
