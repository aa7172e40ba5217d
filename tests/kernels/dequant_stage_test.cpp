// The quantized prefill's tensor-cores-dequant path (DEQUANT_STAGE=1,
// kernels/quant_coopmat.hpp) for all five GGUF kernels: its space, plan and
// contract on an H200-like device, its GEMM stage compiled (lavapipe has no
// cooperative matrices, so it never runs in CI), and its dequantization
// stage run on the test device: fp16 weights bit-exact with
// reference/dequantize rounded to fp16 (ties to even).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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
  EXPECT_EQ(space.bindings[3].size.bytes(shape), 2ull * shape[1] * shape[2]);
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
  EXPECT_EQ(contract.bindings[3].size.bytes(shape), 2ull * shape[1] * shape[2]);

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
    const auto& plan = variant.stages[0].plan;

    std::vector<vk::Buffer> buffers;
    for (const auto& b : problem.buffers) buffers.emplace_back(device, std::max<std::size_t>(b.bytes.size(), 16));
    buffers[1].upload(w);
    buffers[3].fill(0x7e007e00u);  // fp16 NaNs: an unwritten weight shows
    vk::PipelineDesc desc;
    desc.label = "dequant_f16";
    desc.storage_buffers = 4;
    desc.push_constant_bytes = 12;
    desc.local_size = plan.local_size;
    vk::ComputePipeline pipeline(device, variant.stages[0].spirv, desc);
    std::vector<const vk::Buffer*> bound;
    for (const auto& b : buffers) bound.push_back(&b);
    VkDescriptorSet set = pipeline.make_descriptor_set(bound);
    const std::array<std::uint32_t, 3> push{shape[0], n, k};
    const std::span<const std::uint8_t> push_bytes(reinterpret_cast<const std::uint8_t*>(push.data()), sizeof push);
    vk::run_commands(device, [&](VkCommandBuffer cmd) {
      pipeline.record_dispatch(cmd, set, kernels::workgroup_counts(plan.dispatch, shape), push_bytes);
    });

    const auto got = buffers[3].download_values<std::uint16_t>();
    ASSERT_EQ(got.size(), expected.size());
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

INSTANTIATE_TEST_SUITE_P(Kernels, DequantStage, ::testing::ValuesIn(kFormats), format_name);

}  // namespace
}  // namespace vktune
