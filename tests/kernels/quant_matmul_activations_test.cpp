// The quantized matmuls with other activations than fp32
// (kernels/quant_matmul.hpp): the fp16-activation kernels (matmul_q4_0_f16,
// matmul_q8_0_f16, matmul_q4k_f16) against their fp32 siblings, and the
// SwiGLU-input kernels (matmul_q4k_swiglu, matmul_q6k_swiglu) and the
// residual-norm-input ones (matmul_q4k_addnorm, matmul_q6k_addnorm). The
// fp32 kernels: quant_matmul_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/registry.hpp"
#include "reference/fp16.hpp"
#include "reference/matmul.hpp"
#include "tuner/space.hpp"
#include "kernel_test_support.hpp"
#include "quant_formats.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using quant_matmul_testing::Format;
using quant_matmul_testing::format_name;
using quant_matmul_testing::label;
using testing_support::define_value;

// The fp16-activation kernels (kernels/half_activations.hpp): their fp32
// sibling's space, legality and pruning, every template compiled with
// ACT_F16, x and y in halves, rejected without 16-bit storage.
class QuantMatmulHalf : public ::testing::TestWithParam<Format> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam().kernel); }
  const Kernel& fp32_sibling() const {
    const auto& name = GetParam().kernel;
    return kernels::find_kernel(name.substr(0, name.size() - 4));  // less "_f16"
  }
};

TEST_P(QuantMatmulHalf, TheFp32KernelsSpaceAtDecodeAndPrefill) {
  const auto device = testing_support::h200_like_tensor_cores();
  // But DEQUANT_STAGE=2, which rounds fp32 x to fp16, and 3, which quantizes
  // it to 8 bits: x is fp16 here.
  for (const Shape& shape : {Shape{1, 4096, 14336}, Shape{512, 4096, 4096}}) {
    std::vector<kernels::Config> fp32 = enumerate_space(fp32_sibling(), shape, device).valid;
    std::erase_if(fp32, [](const kernels::Config& c) {
      return kernels::quant_coopmat::rounds_x_first(c) || kernels::quant_coopmat::multiplies_int8(c);
    });
    const std::vector<kernels::Config> half = enumerate_space(kernel(), shape, device).valid;
    EXPECT_EQ(half, fp32) << label(GetParam().kernel, shape);
  }
  EXPECT_EQ(kernel().default_shapes(), fp32_sibling().default_shapes());
  // Of the fp32 kernel's check shapes, its first decode and first prefill.
  const auto fp32_checks = fp32_sibling().check_shapes();
  EXPECT_EQ(kernel().check_shapes(), (std::vector<Shape>{fp32_checks.at(0), fp32_checks.at(2)}));
}

// Every stage that reads x or writes y is compiled with ACT_F16 (the
// dequantizing first stage reads only W); the fp32 kernels never are.
TEST_P(QuantMatmulHalf, EveryStageOfXAndYTakesActF16) {
  const auto device = testing_support::h200_like_tensor_cores();
  for (const Shape& shape : {Shape{1, 37, 768}, Shape{40, 30, 512}}) {
    std::map<std::string, int> templates;
    for (const auto& c : enumerate_space(kernel(), shape, device, SpaceScope::full).valid) {
      for (const auto& stage : kernel().stages(c, shape)) {
        EXPECT_EQ(define_value(stage, "ACT_F16"), stage.template_file == "dequant_f16.comp" ? "" : "1")
            << stage.template_file;
        ++templates[stage.template_file];
      }
      for (const auto& stage : fp32_sibling().stages(c, shape)) EXPECT_EQ(define_value(stage, "ACT_F16"), "");
    }
    EXPECT_GE(templates.size(), 4u) << label(GetParam().kernel, shape);  // each path's
  }
}

TEST_P(QuantMatmulHalf, HalvesInBuffersMetricsAndTheProblem) {
  const auto k = 2 * GetParam().block_weights;
  const Shape shape{3, 5, k};
  const auto& bindings = kernel().spaces()[0].bindings;
  EXPECT_EQ(bindings[0].size.bytes(shape), 3u * k * 2);
  EXPECT_EQ(bindings[2].size.bytes(shape), 32u);  // 15 halves, in whole 4-byte words
  EXPECT_EQ(bindings[1].size.bytes(shape), fp32_sibling().spaces()[0].bindings[1].size.bytes(shape));
  const Shape decode{1, 4096, 4096};
  EXPECT_EQ(fp32_sibling().metrics(decode).bytes - kernel().metrics(decode).bytes, 2.0 * (4096 + 4096));
  EXPECT_EQ(fp32_sibling().device_bytes(decode) - kernel().device_bytes(decode), 2u * (4096 + 4096));

  const auto problem = kernel().make_problem(shape, 11);
  EXPECT_TRUE(problem.output_f16);  // poisoned with fp16 NaNs, read back as halves
  ASSERT_EQ(problem.buffers.size(), 3u);
  EXPECT_EQ(problem.buffers[0].bytes.size(), 3u * k * 2);
  EXPECT_EQ(problem.buffers[2].bytes.size(), 32u);
  EXPECT_EQ(problem.expected.size(), 3u * 5);
  // The reference multiplies the halves the device reads.
  std::vector<float> x(3 * k);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::uint16_t h;
    std::memcpy(&h, problem.buffers[0].bytes.data() + 2 * i, 2);
    x[i] = ref::fp16_to_fp32(h);
  }
  EXPECT_EQ(problem.expected,
            ref::matmul_quantized(x.data(), 3, problem.buffers[1].bytes.data(), GetParam().type, 5, k));
  // The same random x as the fp32 kernel's, rounded to fp16.
  const auto fp32 = fp32_sibling().make_problem(shape, 11);
  float first = 0;
  std::memcpy(&first, fp32.buffers[0].bytes.data(), 4);
  EXPECT_EQ(x[0], ref::fp16_to_fp32(ref::fp32_to_fp16(first)));
}

// Each path's fp32-activation tolerance plus y's rounding to fp16 (2^-11).
TEST_P(QuantMatmulHalf, TolerancesAddTheOutputsRounding) {
  const Shape decode{1, 4096, 4096}, prefill{512, 4096, 4096};
  for (const Shape& shape : {decode, prefill}) {
    auto config = fp32_sibling().baseline(shape);
    const auto fp32 = fp32_sibling().variant_tolerance(config, shape);
    const auto half = kernel().variant_tolerance(config, shape);
    EXPECT_DOUBLE_EQ(half.rel_l2, fp32.rel_l2 + 1.0 / 2048);
    EXPECT_DOUBLE_EQ(half.max_rel, fp32.max_rel + 1.0 / 2048);
    config[shape[0] == 1 ? "X_QUANT" : "USE_COOPMAT"] = 1;
    EXPECT_DOUBLE_EQ(kernel().variant_tolerance(config, shape).rel_l2,
                     fp32_sibling().variant_tolerance(config, shape).rel_l2 + 1.0 / 2048);
  }
  EXPECT_DOUBLE_EQ(kernel().tolerance(decode).rel_l2, fp32_sibling().tolerance(decode).rel_l2 + 1.0 / 2048);
}

// A device without 16-bit storage buffer access runs none of them, and says
// so (vktune list --device prints the reason); the fp32 kernels still run.
TEST_P(QuantMatmulHalf, RejectedWithoutSixteenBitStorage) {
  auto device = testing_support::h200_like_tensor_cores();
  device.features.storage_buffer_16bit = false;
  for (const Shape& shape : {Shape{1, 4096, 4096}, Shape{512, 4096, 4096}}) {
    const auto config = kernel().baseline(shape);
    EXPECT_EQ(kernel().constraint_violation(config, shape, device).detail,
              "fp16 x and y buffers need storageBuffer16BitAccess");
    EXPECT_EQ(fp32_sibling().constraint_violation(config, shape, device).detail, "");
    EXPECT_TRUE(enumerate_space(kernel(), shape, device).valid.empty());
  }
}

// The tensor-core paths (fused and dequantize-first) never run in CI
// (lavapipe has no cooperative matrices): compiled here, at partial tiles
// (guarded fp16 stores through shared memory) and at whole ones with rows of
// 8 halves (fp16 matrices stored directly).
TEST_P(QuantMatmulHalf, TensorCoreVariantsCompile) {
  const auto k = GetParam().block_weights == 32 ? 96u : 512u;
  for (const Shape& shape : {Shape{100, 77, k}, Shape{64, 64, k}}) {
    const auto fused = [](const Config& c) { return c.at("USE_COOPMAT") == 1 && c.at("DEQUANT_STAGE") == 0; };
    const auto dequant = [](const Config& c) { return c.at("DEQUANT_STAGE") == 1; };
    EXPECT_EQ(testing_support::expect_variants_compile(kernel(), shape, fused, 1), 1u);
    EXPECT_EQ(testing_support::expect_variants_compile(kernel(), shape, dequant, 1), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, QuantMatmulHalf, ::testing::ValuesIn(quant_matmul_testing::kHalfFormats),
                         format_name);

// The SwiGLU-input kernels (ffn_down reading silu(gate)·up): x's buffer holds
// each row's gate then up values, the reference multiplies their SwiGLU
// (recomputed here from the buffer), and only decode shapes are served.
TEST(QuantMatmulSwiglu, GateAndUpSideBySideAndDecodeShapesOnly) {
  for (const char* name : {"matmul_q4k_swiglu", "matmul_q6k_swiglu"}) {
    SCOPED_TRACE(name);
    const auto& kernel = kernels::find_kernel(name);
    const std::size_t m = 2, n = 5, k = 256;
    const auto problem = kernel.make_problem({m, n, k}, 3);
    ASSERT_EQ(problem.buffers[0].bytes.size(), m * 2 * k * sizeof(float));
    std::vector<float> pairs(m * 2 * k), x(m * k);
    std::memcpy(pairs.data(), problem.buffers[0].bytes.data(), problem.buffers[0].bytes.size());
    for (std::size_t r = 0; r < m; ++r) {
      for (std::size_t i = 0; i < k; ++i) {
        const double gate = pairs[2 * r * k + i], up = pairs[(2 * r + 1) * k + i];
        x[r * k + i] = static_cast<float>(gate / (1 + std::exp(-gate)) * up);
      }
    }
    const auto type = std::string(name) == "matmul_q4k_swiglu" ? ref::GgmlType::Q4_K : ref::GgmlType::Q6_K;
    EXPECT_EQ(problem.expected, ref::matmul_quantized(x.data(), m, problem.buffers[1].bytes.data(), type, n, k));
    // Every stage reads x through the SwiGLU.
    const auto config = kernel.baseline({1, n, k});
    for (const auto& stage : kernel.stages(config, {1, n, k})) {
      EXPECT_NE(std::find(stage.defines.begin(), stage.defines.end(), std::pair<std::string, std::string>{
                                                                           "ACT_SWIGLU", "1"}),
                stage.defines.end());
    }
    EXPECT_NO_THROW(kernel.validate_shape({8, n, k}));
    try {
      kernel.validate_shape({9, n, k});
      ADD_FAILURE() << "M = 9 accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string(name) +
                                           ": M=9 is a prefill shape; the SwiGLU input serves decode shapes (M <= 8)");
    }
  }
}

// The residual-norm-input kernels (a layer's products reading the norm of
// h + d): the problem's buffers in binding order, its expected outputs the
// product of the norm recomputed here (y), each x row with its own scale,
// and the sum (s); the ACT_ADDNORM template; only decode shapes.
TEST(QuantMatmulAddnorm, TheNormOfTheSumRecomputedHereAndTheSumWritten) {
  for (const char* name : {"matmul_q4k_addnorm", "matmul_q6k_addnorm"}) {
    SCOPED_TRACE(name);
    const auto& kernel = kernels::find_kernel(name);
    const std::size_t m = 3, n = 5, k = 512;
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto problem = kernel.make_problem({m, n, k}, seed);
    ASSERT_EQ(problem.buffers.size(), 6u);
    const std::vector<std::string> names{"x", "W", "y", "b", "w", "s"};
    for (std::size_t b = 0; b < names.size(); ++b) EXPECT_EQ(problem.buffers[b].name, names[b]);
    EXPECT_EQ(problem.output_index, 2u);
    EXPECT_EQ(problem.more_outputs, std::vector<std::size_t>{5});
    auto floats = [&](std::size_t b) {
      std::vector<float> v(problem.buffers[b].bytes.size() / sizeof(float));
      std::memcpy(v.data(), problem.buffers[b].bytes.data(), problem.buffers[b].bytes.size());
      return v;
    };
    const auto h = floats(0), d = floats(3), g = floats(4);
    ASSERT_EQ(h.size(), m * k);
    ASSERT_EQ(g.size(), k);
    std::vector<float> x(m * k), sums(m * k);
    for (std::size_t r = 0; r < m; ++r) {
      double squares = 0;
      for (std::size_t i = 0; i < k; ++i) {
        sums[r * k + i] = h[r * k + i] + d[r * k + i];
        squares += double{sums[r * k + i]} * sums[r * k + i];
      }
      const double scale = 1 / std::sqrt(squares / k + 1e-5);
      for (std::size_t i = 0; i < k; ++i) x[r * k + i] = static_cast<float>(sums[r * k + i] * scale * g[i]);
    }
    const auto type = std::string(name) == "matmul_q4k_addnorm" ? ref::GgmlType::Q4_K : ref::GgmlType::Q6_K;
    auto want = ref::matmul_quantized(x.data(), m, problem.buffers[1].bytes.data(), type, n, k);
    want.insert(want.end(), sums.begin(), sums.end());
    ASSERT_EQ(problem.expected.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(problem.expected[i], want[i], 1e-6 * (1 + std::fabs(want[i]))) << i;
    }
    const auto config = kernel.baseline({1, n, k});
    for (const auto& stage : kernel.stages(config, {1, n, k})) {
      EXPECT_NE(std::find(stage.defines.begin(), stage.defines.end(), std::pair<std::string, std::string>{
                                                                           "ACT_ADDNORM", "1"}),
                stage.defines.end());
    }
    try {
      kernel.validate_shape({9, n, k});
      ADD_FAILURE() << "M = 9 accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string(name) + ": M=9 is a prefill shape; the residual norm input serves decode shapes (M <= 8)");
    }
  }
}


// On the device: the residual norm's two ways of summing a row's squares
// (as x is quantized, X_QUANT=1, or before the walk) with several x rows
// per workgroup (a scale each) and rows past M in the last pass (clamped
// for loading: summed twice, the last row's scale would be wrong), every
// variant of each way's covering array validated against the reference,
// the sums s included.
TEST(QuantMatmulAddnorm, EveryXRowItsOwnScaleOnTheDevice) {
  vk::Instance instance;
  const vk::Device device(instance, testing_support::test_device_index());
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const char* name : {"matmul_q4k_addnorm", "matmul_q6k_addnorm"}) {
    const auto& kernel = kernels::find_kernel(name);
    const Shape shape{3, 19, 512};
    for (const int quantized : {0, 1}) {
      SCOPED_TRACE(std::string(name) + " X_QUANT=" + std::to_string(quantized));
      const auto configs = testing_support::covering_of(kernel, shape, device.info(), [&](const Config& c) {
        return c.at("X_QUANT") == quantized && c.at("COLS_PER_PASS") == 2;
      });
      ASSERT_FALSE(configs.empty());
      const auto failures = testing_support::failing_variants(instance, kernel, shape, configs, seed);
      EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures);
    }
  }
}

}  // namespace
}  // namespace vktune
