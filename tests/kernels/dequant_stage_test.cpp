// The quantized prefill's tensor-cores-dequant path (DEQUANT_STAGE=1,
// kernels/quant_coopmat.hpp) for all five GGUF kernels: its space, plan and
// contract on an H200-like device, its GEMM stage compiled (lavapipe has no
// cooperative matrices, so it never runs in CI), and its dequantization
// stage run on the test device: fp16 weights bit-exact with
// reference/dequantize rounded to fp16 (ties to even).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "harness/buffer.hpp"
#include "harness/commands.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "harness/pipeline.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/registry.hpp"
#include "kernels/variant_contract.hpp"
#include "reference/dequantize.hpp"
#include "reference/fp16.hpp"
#include "reference/gguf_types.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "kernel_test_support.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

struct Format {
  std::string kernel;
  ref::GgmlType type;
  std::uint32_t block_weights;
};

const std::vector<Format> kFormats = {{"matmul_q4_0", ref::GgmlType::Q4_0, 32},
                                      {"matmul_q8_0", ref::GgmlType::Q8_0, 32},
                                      {"matmul_q4k", ref::GgmlType::Q4_K, 256},
                                      {"matmul_q5k", ref::GgmlType::Q5_K, 256},
                                      {"matmul_q6k", ref::GgmlType::Q6_K, 256}};

std::string format_name(const ::testing::TestParamInfo<Format>& info) { return info.param.kernel; }

const kernels::Parameter& parameter(const kernels::Space& space, const std::string& name) {
  return *std::find_if(space.parameters.begin(), space.parameters.end(),
                       [&](const kernels::Parameter& p) { return p.name == name; });
}

// A prefill shape whose K is no multiple of any DQ_WG*DQ_RUN (the last
// workgroup of a row is partial) and whose N is odd.
Shape test_shape(const Format& f) { return {16, 37, f.block_weights == 32 ? 1440u : 1280u}; }

Config dequant_config(const kernels::Kernel& kernel, const Shape& shape, int wg, int run) {
  auto config = kernel.baseline(shape);
  config["USE_COOPMAT"] = 1;
  config["DEQUANT_STAGE"] = 1;
  config["DQ_WG"] = wg;
  config["DQ_RUN"] = run;
  config["TILE_M"] = config["TILE_N"] = config["TILE_K"] = 32;
  config["WARPS_M"] = config["WARPS_N"] = 1;
  config["THREAD_M"] = config["THREAD_N"] = 2;  // the fp32 path's, at their first value
  return config;
}

// One stage of `variant` (compiled) dispatched alone on `device` over
// `buffers` (the prefill space's four bindings), the shape pushed as M, N, K.
void run_stage(vk::Device& device, const CompiledVariant& variant, std::size_t stage, std::vector<vk::Buffer>& buffers,
               const Shape& shape) {
  const auto& plan = variant.stages[stage].plan;
  vk::PipelineDesc desc;
  desc.label = plan.template_file;
  desc.storage_buffers = 4;
  desc.push_constant_bytes = 12;
  desc.local_size = plan.local_size;
  vk::ComputePipeline pipeline(device, variant.stages[stage].spirv, desc);
  std::vector<const vk::Buffer*> bound;
  for (const auto& b : buffers) bound.push_back(&b);
  VkDescriptorSet set = pipeline.make_descriptor_set(bound);
  const std::array<std::uint32_t, 3> push{shape[0], shape[1], shape[2]};
  const std::span<const std::uint8_t> push_bytes(reinterpret_cast<const std::uint8_t*>(push.data()), sizeof push);
  vk::run_commands(device, [&](VkCommandBuffer cmd) {
    pipeline.record_dispatch(cmd, set, kernels::workgroup_counts(plan.dispatch, shape), push_bytes);
  });
}

class DequantStage : public ::testing::TestWithParam<Format> {
 protected:
  const kernels::Kernel& kernel() const { return kernels::find_kernel(GetParam().kernel); }
};

TEST_P(DequantStage, APathOfTwoStagesBesideTheFusedOne) {
  const auto shape = test_shape(GetParam());
  const auto device = testing_support::h200_like_tensor_cores();
  const auto& space = kernel().spaces().at(kernel().space_index(shape));
  ASSERT_EQ(space.bindings.size(), 4u);
  EXPECT_EQ(space.bindings[3].name, "W16");
  EXPECT_EQ(space.bindings[3].role, kernels::BindingRole::scratch);
  // W's halves, then x's (DEQUANT_STAGE=2 writes them there).
  EXPECT_EQ(space.bindings[3].size.bytes(shape), 2ull * shape[1] * shape[2] + 2ull * shape[0] * shape[2]);
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({1, 37, shape[2]})).bindings.size(), 3u);

  const auto config = dequant_config(kernel(), shape, 128, 16);
  EXPECT_EQ(kernel().constraint_violation(config, shape, device).detail, "");
  ASSERT_NE(space.path_of(config), nullptr);
  EXPECT_EQ(space.path_of(config)->name, "tensor-cores-dequant");
  const auto stages = kernel().stages(config, shape);
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].template_file, "dequant_f16.comp");
  EXPECT_EQ(stages[1].template_file, "matmul_quant_cm_f16w.comp");
  EXPECT_EQ(kernels::workgroup_counts(stages[0].dispatch, shape), (std::array<std::uint32_t, 3>{37, 1, 1}));
  EXPECT_EQ(kernel().variant_tolerance(config, shape).rel_l2, kernels::quant_coopmat::kTolerance.rel_l2);
  const auto contract = kernels::launch_contract(kernel(), config, shape);
  EXPECT_EQ(contract.bindings[3].size.bytes(shape), 2ull * shape[1] * shape[2] + 2ull * shape[0] * shape[2]);

  // The fused path: one stage, no DEQUANT_STAGE define, W16 unused.
  auto fused = config;
  fused["DEQUANT_STAGE"] = 0;
  EXPECT_NE(kernel().constraint_violation(fused, shape, device).detail, "");  // DQ_WG, DQ_RUN off their pins
  fused["DQ_WG"] = 64;
  fused["DQ_RUN"] = 8;
  EXPECT_EQ(kernel().constraint_violation(fused, shape, device).detail, "");
  const auto one = kernel().stages(fused, shape);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].template_file, "matmul_quant_cm.comp");
  for (const auto& d : one[0].defines) EXPECT_FALSE(kernels::quant_coopmat::is_dequant_parameter(d.first)) << d.first;
  EXPECT_EQ(space.path_of(fused)->name, "tensor-cores");
  EXPECT_LT(kernels::launch_contract(kernel(), fused, shape).bindings[3].size.bytes(shape), 64u);
  // DEQUANT_STAGE=1 feeds the tensor cores only.
  auto fp32 = kernel().baseline(shape);
  fp32["DEQUANT_STAGE"] = 1;
  EXPECT_NE(kernel().constraint_violation(fp32, shape, device).detail.find("USE_COOPMAT=1"), std::string::npos);

  // The GEMM stage compiles, on partial tiles too.
  const Shape partial{100, 77, shape[2]};
  EXPECT_EQ(testing_support::expect_variants_compile(
                kernel(), partial, [](const Config& c) { return c.at("DEQUANT_STAGE") == 1; }, 2),
            2u);
}

// Two stages hashed as one variant: the dequantization defines only QTYPE,
// DQ_WG and DQ_RUN, so another tile changes the GEMM stage alone, and
// another DQ_RUN the first stage alone; every change moves the hash.
TEST_P(DequantStage, TheVariantHashCoversBothStages) {
  const auto shape = test_shape(GetParam());
  const auto templates = TemplateLibrary::embedded();
  const auto base = describe_variant(kernel(), dequant_config(kernel(), shape, 64, 8), shape, templates);
  ASSERT_EQ(base.stages.size(), 2u);
  EXPECT_EQ(base.describe_templates(), "dequant_f16.comp + matmul_quant_cm_f16w.comp");
  std::vector<std::string> names;
  for (const auto& d : base.stages[0].plan.defines) names.push_back(d.first);
  EXPECT_EQ(names, (std::vector<std::string>{"QTYPE", "DQ_WG", "DQ_RUN"}));
  auto wider = dequant_config(kernel(), shape, 64, 8);
  wider["TILE_N"] = 64;
  const auto tile = describe_variant(kernel(), wider, shape, templates);
  EXPECT_EQ(tile.stages[0].plan.defines, base.stages[0].plan.defines);
  EXPECT_NE(tile.stages[1].plan.defines, base.stages[1].plan.defines);
  EXPECT_NE(tile.variant_hash, base.variant_hash);
  const auto run = describe_variant(kernel(), dequant_config(kernel(), shape, 64, 16), shape, templates);
  EXPECT_NE(run.stages[0].plan.defines, base.stages[0].plan.defines);
  EXPECT_EQ(run.stages[1].plan.defines, base.stages[1].plan.defines);
  EXPECT_NE(run.variant_hash, base.variant_hash);
}

TEST_P(DequantStage, Fp16WeightsBitExactOnTheDevice) {
  const auto& f = GetParam();
  const auto shape = test_shape(f);
  const std::uint32_t n = shape[1], k = shape[2];
  const auto templates = TemplateLibrary::embedded();
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  const auto problem = kernel().make_problem(shape, 31);
  ASSERT_EQ(problem.buffers.size(), 4u);
  const auto& w = problem.buffers[1].bytes;

  std::vector<std::uint16_t> expected(std::size_t{n} * k);
  std::vector<float> row(k);
  for (std::uint32_t r = 0; r < n; ++r) {
    ref::dequantize_row(f.type, w.data() + r * ref::row_bytes(f.type, k), row.data(), k);
    for (std::uint32_t i = 0; i < k; ++i) expected[std::size_t{r} * k + i] = ref::fp32_to_fp16(row[i]);
  }

  for (const auto& [wg, run] : {std::pair{64, 8}, std::pair{128, 16}, std::pair{256, 32}, std::pair{64, 32}}) {
    const auto config = dequant_config(kernel(), shape, wg, run);
    auto variant = describe_variant(kernel(), config, shape, templates);
    ASSERT_EQ(variant.stages.size(), 2u);
    variant.stages.resize(1);  // the dequantization only: the GEMM needs cooperative matrices
    compile_variant(variant, templates);

    std::vector<vk::Buffer> buffers;
    for (const auto& b : problem.buffers) buffers.emplace_back(device, std::max<std::size_t>(b.bytes.size(), 16));
    buffers[1].upload(w);
    buffers[3].fill(0x7e007e00u);  // fp16 NaNs: an unwritten weight shows
    run_stage(device, variant, 0, buffers, shape);

    // W's halves, then room for x's (DEQUANT_STAGE=2), which this stage leaves alone.
    const auto got = buffers[3].download_values<std::uint16_t>();
    ASSERT_EQ(got.size(), expected.size() + std::size_t{shape[0]} * k);
    EXPECT_TRUE(std::all_of(got.begin() + static_cast<std::ptrdiff_t>(expected.size()), got.end(),
                            [](std::uint16_t h) { return h == 0x7e00u; }));
    std::size_t wrong = 0;
    std::string first;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (got[i] == expected[i]) continue;
      if (wrong++ == 0) {
        first = "weight " + std::to_string(i) + " (row " + std::to_string(i / k) + "): got " +
                std::to_string(got[i]) + ", expected " + std::to_string(expected[i]);
      }
    }
    EXPECT_EQ(wrong, 0u) << f.kernel << " " << kernels::config_to_string(config) << ": " << first;
  }
}

// DEQUANT_STAGE=2: a third dispatch, between the two, rounds x to fp16
// behind W's halves, and the GEMM stage reads both as 16-byte chunks (X16);
// only where x is fp32 values (the fp16-activation kernels keep 0 and 1).
TEST_P(DequantStage, XRoundedToHalvesByADispatchOfItsOwn) {
  const auto shape = test_shape(GetParam());
  const auto device = testing_support::h200_like_tensor_cores();
  const auto& space = kernel().spaces().at(kernel().space_index(shape));
  EXPECT_EQ(parameter(space, "DEQUANT_STAGE").values, (std::vector<int>{0, 1, 2, 3}));  // 3: int8_stage_test.cpp
  auto config = dequant_config(kernel(), shape, 128, 16);
  config["DEQUANT_STAGE"] = 2;
  EXPECT_EQ(kernel().constraint_violation(config, shape, device).detail, "");
  ASSERT_NE(space.path_of(config), nullptr);
  EXPECT_EQ(space.path_of(config)->name, "tensor-cores-dequant-x16");
  const auto stages = kernel().stages(config, shape);
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].template_file, "dequant_f16.comp");
  EXPECT_EQ(stages[1].template_file, "round_x_f16.comp");
  EXPECT_EQ(stages[2].template_file, "matmul_quant_cm_f16w.comp");
  // A workgroup per row of x and 2048 of its values.
  EXPECT_EQ(kernels::workgroup_counts(stages[1].dispatch, shape),
            (std::array<std::uint32_t, 3>{shape[0], (shape[2] + 2047) / 2048, 1}));
  const auto x16 = std::find(stages[2].defines.begin(), stages[2].defines.end(), std::pair<std::string, std::string>{"X16", "1"});
  EXPECT_NE(x16, stages[2].defines.end());
  for (const auto& d : stages[1].defines) EXPECT_FALSE(kernels::quant_coopmat::is_dequant_parameter(d.first)) << d.first;
  EXPECT_EQ(kernel().variant_tolerance(config, shape).rel_l2, kernels::quant_coopmat::kTolerance.rel_l2);
  // The GEMM stage compiles, on partial tiles too.
  const Shape partial{100, 77, shape[2]};
  EXPECT_EQ(testing_support::expect_variants_compile(
                kernel(), partial, [](const Config& c) { return c.at("DEQUANT_STAGE") == 2; }, 2),
            2u);

  const auto* half = kernels::find_kernel_or_null(GetParam().kernel + "_f16");  // Q4_0, Q8_0 and Q4_K have one
  if (half == nullptr) return;
  const auto& half_space = half->spaces().at(half->space_index(shape));
  EXPECT_EQ(parameter(half_space, "DEQUANT_STAGE").values, (std::vector<int>{0, 1}));
  for (const auto& path : half_space.paths) EXPECT_NE(path.name, "tensor-cores-dequant-x16");
  EXPECT_EQ(half_space.bindings.back().size.bytes(shape), 2ull * shape[1] * shape[2]);  // W's halves only
}

// CM_PREFETCH (slices in flight) is read by DEQUANT_STAGE=2's GEMM alone:
// a path per value, defined for that stage only, illegal away from 1 on the
// other paths, and compiled.
TEST_P(DequantStage, SlicesInFlightOnlyOnTheX16Gemm) {
  const auto shape = test_shape(GetParam());
  const auto device = testing_support::h200_like_tensor_cores();
  const auto& space = kernel().spaces().at(kernel().space_index(shape));
  EXPECT_EQ(parameter(space, "CM_PREFETCH").values, (std::vector<int>{1, 2}));
  auto config = dequant_config(kernel(), shape, 128, 16);
  config["DEQUANT_STAGE"] = 2;
  config["CM_PREFETCH"] = 2;
  EXPECT_EQ(kernel().constraint_violation(config, shape, device).detail, "");
  ASSERT_NE(space.path_of(config), nullptr);
  EXPECT_EQ(space.path_of(config)->name, "tensor-cores-dequant-x16-prefetch2");
  const auto stages = kernel().stages(config, shape);
  ASSERT_EQ(stages.size(), 3u);
  const std::pair<std::string, std::string> two{"CM_PREFETCH", "2"};
  EXPECT_NE(std::find(stages[2].defines.begin(), stages[2].defines.end(), two), stages[2].defines.end());
  for (std::size_t s = 0; s < 2; ++s) {
    for (const auto& d : stages[s].defines) EXPECT_NE(d.first, "CM_PREFETCH") << stages[s].template_file;
  }
  for (const int stage : {1, 0}) {
    config["DEQUANT_STAGE"] = stage;
    if (stage == 0) config["DQ_WG"] = 64, config["DQ_RUN"] = 8;  // read by the dequant stage alone
    EXPECT_NE(kernel().constraint_violation(config, shape, device).detail.find("CM_PREFETCH is only read with "
                                                                              "DEQUANT_STAGE=2"),
              std::string::npos)
        << stage;
  }
  const Shape partial{100, 77, shape[2]};
  EXPECT_EQ(testing_support::expect_variants_compile(
                kernel(), partial,
                [](const Config& c) { return c.at("DEQUANT_STAGE") == 2 && c.at("CM_PREFETCH") == 2; }, 2),
            2u);
}

// The rounding stage on the test device: x's halves, rounded to nearest
// even, land behind W's, and W's stay as they were (poisoned here).
TEST(DequantStageX16, XHalvesBitExactBehindTheWeightsOnTheDevice) {
  const auto& kernel = kernels::find_kernel("matmul_q4k");
  const Shape shape{13, 37, 2560};  // K past 2048: a second, partial workgroup per row
  const std::uint32_t m = shape[0], n = shape[1], k = shape[2];
  const auto templates = TemplateLibrary::embedded();
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  std::vector<float> x(std::size_t{m} * k);
  std::normal_distribution<float> normal(0.0f, 8.0f);
  for (auto& v : x) v = normal(rng);
  // Values fp16 must round: halfway between two halves (ties to even), past
  // its largest (to infinity), below its smallest normal (subnormals).
  x[0] = 1.0f + 1.0f / 2048;
  x[1] = 1.0f + 3.0f / 2048;
  x[2] = 70000.0f;
  x[3] = -3.0e-6f;

  auto config = dequant_config(kernel, shape, 64, 8);
  config["DEQUANT_STAGE"] = 2;
  auto variant = describe_variant(kernel, config, shape, templates);
  ASSERT_EQ(variant.stages.size(), 3u);
  variant.stages = {variant.stages[1]};  // the rounding only: the GEMM needs cooperative matrices
  compile_variant(variant, templates);
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  std::vector<vk::Buffer> buffers;
  for (const auto& b : space.bindings) buffers.emplace_back(device, std::max<std::size_t>(b.size.bytes(shape), 16));
  buffers[0].upload(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(x.data()), x.size() * 4));
  buffers[3].fill(0x7e007e00u);  // fp16 NaNs
  run_stage(device, variant, 0, buffers, shape);

  const auto got = buffers[3].download_values<std::uint16_t>();
  ASSERT_EQ(got.size(), std::size_t{n} * k + std::size_t{m} * k);
  std::size_t w_written = 0, wrong = 0;
  std::string first;
  for (std::size_t i = 0; i < std::size_t{n} * k; ++i) w_written += got[i] != 0x7e00u;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint16_t expected = ref::fp32_to_fp16(x[i]);
    const std::uint16_t value = got[std::size_t{n} * k + i];
    if (value == expected) continue;
    if (wrong++ == 0) {
      first = "x[" + std::to_string(i) + "] = " + std::to_string(x[i]) + ": got " + std::to_string(value) +
              ", expected " + std::to_string(expected);
    }
  }
  EXPECT_EQ(w_written, 0u);
  EXPECT_EQ(wrong, 0u) << first;
  EXPECT_EQ(ref::fp32_to_fp16(x[0]), 0x3c00u);  // the tie rounds to the even 1.0
  EXPECT_EQ(ref::fp32_to_fp16(x[2]), 0x7c00u);  // infinity
}

INSTANTIATE_TEST_SUITE_P(Kernels, DequantStage, ::testing::ValuesIn(kFormats), format_name);

}  // namespace
}  // namespace vktune
