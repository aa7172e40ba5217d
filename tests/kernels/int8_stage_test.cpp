// The quantized prefill's int8 tensor-core path (DEQUANT_STAGE=3,
// kernels/quant_coopmat.hpp) for all five GGUF kernels: its path, plan and
// legality on an H200-like device (int8 cooperative matrices 16×16×32) and
// on one without them, its GEMM compiled (lavapipe has no cooperative
// matrices: the GEMM's numbers are checked on GPUs), and its two first
// stages run on the test device: W's codes and scales against
// reference/dequantize, x's against the quantization they document, and the
// numbers the GEMM makes of them (integer products, each group's scales)
// against the double reference within the path's tolerance, on random and
// adversarial inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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
#include "reference/dequantize.hpp"
#include "reference/gguf_types.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "kernel_test_support.hpp"

namespace vktune {
namespace int8_stage_test {  // beside dequant_stage_test.cpp in one unity build
namespace {

using kernels::Config;
using kernels::Shape;

struct Format {
  std::string kernel;
  ref::GgmlType type;
  std::uint32_t block_weights;
  bool exact;  // every 32 weights share one scale and offset (not Q6_K's 16-weight sub-blocks)
};

const std::vector<Format> kFormats = {{"matmul_q4_0", ref::GgmlType::Q4_0, 32, true},
                                      {"matmul_q8_0", ref::GgmlType::Q8_0, 32, true},
                                      {"matmul_q4k", ref::GgmlType::Q4_K, 256, true},
                                      {"matmul_q5k", ref::GgmlType::Q5_K, 256, true},
                                      {"matmul_q6k", ref::GgmlType::Q6_K, 256, false}};

std::string format_name(const ::testing::TestParamInfo<Format>& info) { return info.param.kernel; }

// K past one 2048-value segment of x's quantization (the second partial),
// N odd, M past one 16-row block.
Shape test_shape(const Format& f) { return {19, 37, f.block_weights == 32 ? 2080u : 2304u}; }

Config int8_config(const kernels::Kernel& kernel, const Shape& shape) {
  auto config = kernel.baseline(shape);
  config["USE_COOPMAT"] = 1;
  config["DEQUANT_STAGE"] = 3;
  config["TILE_M"] = config["TILE_N"] = config["TILE_K"] = 32;
  config["WARPS_M"] = config["WARPS_N"] = 1;
  config["THREAD_M"] = config["THREAD_N"] = 2;  // the fp32 path's, at their first value
  return config;
}

// Stage `stage` of the config's variant compiled and dispatched alone on the
// test device over the space's bindings, x and W uploaded, W16 poisoned with
// NaNs; returns W16's words.
std::vector<std::uint32_t> run_stage(const kernels::Kernel& kernel, const Config& config, const Shape& shape,
                                     std::size_t stage, const kernels::Problem& problem) {
  const auto templates = TemplateLibrary::embedded();
  auto variant = describe_variant(kernel, config, shape, templates);
  EXPECT_EQ(variant.stages.size(), 3u);
  variant.stages = {variant.stages.at(stage)};
  compile_variant(variant, templates);
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  std::vector<vk::Buffer> buffers;
  for (const auto& b : problem.buffers) buffers.emplace_back(device, std::max<std::size_t>(b.bytes.size(), 16));
  buffers[0].upload(problem.buffers[0].bytes);
  buffers[1].upload(problem.buffers[1].bytes);
  buffers[3].fill(0x7fc00000u);  // fp32 NaNs: a word left unwritten shows
  const auto& plan = variant.stages[0].plan;
  vk::PipelineDesc desc;
  desc.label = plan.template_file;
  desc.storage_buffers = 4;
  desc.push_constant_bytes = 12;
  desc.local_size = plan.local_size;
  vk::ComputePipeline pipeline(device, variant.stages[0].spirv, desc);
  std::vector<const vk::Buffer*> bound;
  for (const auto& b : buffers) bound.push_back(&b);
  VkDescriptorSet set = pipeline.make_descriptor_set(bound);
  const std::array<std::uint32_t, 3> push{shape[0], shape[1], shape[2]};
  const std::span<const std::uint8_t> push_bytes(reinterpret_cast<const std::uint8_t*>(push.data()), sizeof push);
  vk::run_commands(device, [&](VkCommandBuffer cmd) {
    pipeline.record_dispatch(cmd, set, kernels::workgroup_counts(plan.dispatch, shape), push_bytes);
  });
  return buffers[3].download_values<std::uint32_t>();
}

std::int8_t code_at(const std::vector<std::uint32_t>& words, std::size_t byte) {
  return static_cast<std::int8_t>((words[byte / 4] >> (8 * (byte % 4))) & 0xffu);
}
float float_at(const std::vector<std::uint32_t>& words, std::size_t word) {
  float f;
  std::memcpy(&f, &words[word], 4);
  return f;
}

// The layout the stages' headers give: W's codes at byte n*K + k, its (a, b)
// at float 2*(N*K/8 + g*N + n); x's codes at byte 2NK + m*K + k, its
// (dx, sx) at float 2*((2NK + MK)/8 + g*M + m).
struct Layout {
  std::size_t m, n, k;
  std::size_t w_code(std::size_t row, std::size_t col) const { return row * k + col; }
  std::size_t w_scale(std::size_t row, std::size_t g) const { return 2 * (n * k / 8 + g * n + row); }
  std::size_t x_code(std::size_t row, std::size_t col) const { return 2 * n * k + row * k + col; }
  std::size_t x_scale(std::size_t row, std::size_t g) const { return 2 * ((2 * n * k + m * k) / 8 + g * m + row); }
};

class Int8Stage : public ::testing::TestWithParam<Format> {
 protected:
  const kernels::Kernel& kernel() const { return kernels::find_kernel(GetParam().kernel); }
};

TEST_P(Int8Stage, APathOfThreeStagesOnInt8TensorCores) {
  const auto shape = test_shape(GetParam());
  const auto device = testing_support::h200_like_tensor_cores();
  const auto& space = kernel().spaces().at(kernel().space_index(shape));
  const auto config = int8_config(kernel(), shape);
  EXPECT_EQ(kernel().constraint_violation(config, shape, device).detail, "");
  ASSERT_NE(space.path_of(config), nullptr);
  EXPECT_EQ(space.path_of(config)->name, "tensor-cores-int8");
  const auto stages = kernel().stages(config, shape);
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].template_file, "quantize_x_q8.comp");
  EXPECT_EQ(stages[1].template_file, "requant_w_q8.comp");
  EXPECT_EQ(stages[2].template_file, "matmul_quant_cm_i8.comp");
  // A workgroup per row of x and 2048 of its values; per row of W and 64 groups of 32.
  EXPECT_EQ(kernels::workgroup_counts(stages[0].dispatch, shape), (std::array<std::uint32_t, 3>{19, 2, 1}));
  EXPECT_EQ(kernels::workgroup_counts(stages[1].dispatch, shape), (std::array<std::uint32_t, 3>{37, 2, 1}));
  EXPECT_EQ(kernels::workgroup_counts(stages[2].dispatch, shape), (std::array<std::uint32_t, 3>{2, 1, 1}));
  const std::pair<std::string, std::string> qtype{"QTYPE", std::to_string(static_cast<int>(
                                                               kernel().name() == "matmul_q4_0"   ? 1
                                                               : kernel().name() == "matmul_q8_0" ? 2
                                                               : kernel().name() == "matmul_q5k"  ? 3
                                                               : kernel().name() == "matmul_q6k"  ? 4
                                                                                                  : 5))};
  EXPECT_NE(std::find(stages[1].defines.begin(), stages[1].defines.end(), qtype), stages[1].defines.end());
  for (const auto& s : stages) {
    for (const auto& d : s.defines) EXPECT_FALSE(kernels::quant_coopmat::is_dequant_parameter(d.first)) << d.first;
  }
  EXPECT_EQ(kernel().variant_tolerance(config, shape).rel_l2, kernels::quant_coopmat::kInt8Tolerance.rel_l2);

  // What the path does not read stays pinned; TILE_K whole 32-groups.
  for (const auto& [name, value] : {std::pair{"CM_SHAPE", 1}, std::pair{"DQ_WG", 128}, std::pair{"DQ_RUN", 16}}) {
    auto idle = config;
    idle[name] = value;
    EXPECT_NE(kernel().constraint_violation(idle, shape, device).detail.find("not read with DEQUANT_STAGE=3"),
              std::string::npos)
        << name;
  }
  auto thin = config;
  thin["TILE_K"] = 16;
  EXPECT_EQ(kernel().constraint_violation(thin, shape, device).rule, "quant_coopmat.int8_tile");

  // A device with fp16 tensor cores only: illegal with the reason, the fp16 paths still legal.
  auto fp16_only = device;
  std::erase_if(fp16_only.cooperative_matrix_shapes, [](const auto& s) { return s.a_type == "s8"; });
  const auto refused = kernel().constraint_violation(config, shape, fp16_only);
  EXPECT_NE(refused.detail.find("16x16x32 cooperative matrix with s8 inputs and s32 accumulators"), std::string::npos)
      << refused.detail;
  auto x16 = config;
  x16["DEQUANT_STAGE"] = 2;
  x16["TILE_K"] = 32;
  EXPECT_EQ(kernel().constraint_violation(x16, shape, fp16_only).detail, "");
  auto no_int8 = device;
  no_int8.features.shader_int8 = false;
  EXPECT_NE(kernel().constraint_violation(config, shape, no_int8).detail.find("shaderInt8"), std::string::npos);

  // The GEMM compiles, on partial tiles too.
  const Shape partial{100, 77, shape[2]};
  EXPECT_EQ(testing_support::expect_variants_compile(
                kernel(), partial, [](const Config& c) { return c.at("DEQUANT_STAGE") == 3; }, 3, SpaceScope::full),
            3u);

  // The fp16-activation kernels keep x in fp16: no int8 path.
  const auto* half = kernels::find_kernel_or_null(GetParam().kernel + "_f16");
  if (half == nullptr) return;
  for (const auto& path : half->spaces().at(half->space_index(shape)).paths) EXPECT_NE(path.name, "tensor-cores-int8");
}

// Measured slower than the fp16 path on H200s, the path is pruned on
// NVIDIA's devices and searched on any other with int8 matrices (`--space
// full` searches it everywhere).
TEST_P(Int8Stage, PrunedOnNvidiaAlone) {
  const Shape shape{512, 4096, 4096};
  auto config = int8_config(kernel(), shape);
  config["TILE_M"] = 128;
  config["TILE_N"] = 64;
  config["TILE_K"] = 64;
  config["WARPS_M"] = 4;
  const auto nvidia = testing_support::h200_like_tensor_cores();
  auto other = nvidia;
  other.vendor_id = 0x1002;
  EXPECT_EQ(kernel().constraint_violation(config, shape, nvidia).detail, "");
  EXPECT_EQ(testing_support::pruned_by(kernel(), config, shape, nvidia), "quant_coopmat.int8-on-nvidia");
  EXPECT_EQ(testing_support::pruned_by(kernel(), config, shape, other), "");
  const auto int8 = [](const SpaceEnumeration& space) {
    return std::count_if(space.valid.begin(), space.valid.end(), kernels::quant_coopmat::multiplies_int8);
  };
  EXPECT_EQ(int8(enumerate_space(kernel(), shape, nvidia)), 0);
  const auto searched = int8(enumerate_space(kernel(), shape, other));
  EXPECT_GT(searched, 0);
  EXPECT_EQ(int8(enumerate_space(kernel(), shape, nvidia, SpaceScope::full)), searched);
}

// requant_w_q8.comp: every 32 weights as codes and (a, b) whose a*c - b is
// reference/dequantize's weight bit for bit where the group shares one
// scale, and within half a step of max|w|/127 (b = 0) where it does not
// (Q6_K); x's part of the scratch left alone.
TEST_P(Int8Stage, WeightCodesOnTheDevice) {
  const auto& f = GetParam();
  const auto shape = test_shape(f);
  const Layout at{shape[0], shape[1], shape[2]};
  for (const auto kind : {ref::InputKind::random, ref::InputKind::adversarial}) {
    const std::uint64_t seed = std::random_device{}();
    std::cout << f.kernel << (kind == ref::InputKind::random ? " random" : " adversarial") << " seed " << seed << "\n";
    const auto problem = kernel().make_problem(shape, kernels::Inputs{seed, kind});
    const auto words = run_stage(kernel(), int8_config(kernel(), shape), shape, 1, problem);
    const auto w = ref::dequantize_rows(f.type, problem.buffers[1].bytes.data(), at.n, at.k);
    std::size_t wrong = 0, requantized = 0;
    std::string first;
    for (std::size_t n = 0; n < at.n; ++n) {
      for (std::size_t g = 0; g < at.k / 32; ++g) {
        const float a = float_at(words, at.w_scale(n, g)), b = float_at(words, at.w_scale(n, g) + 1);
        bool exact = true;
        float wmax = 0.0f;
        for (std::size_t i = 0; i < 32; ++i) {
          const float c = code_at(words, at.w_code(n, g * 32 + i));
          exact = exact && a * c - b == w[n * at.k + g * 32 + i];
          wmax = std::max(wmax, std::fabs(w[n * at.k + g * 32 + i]));
        }
        bool ok = exact;
        if (!exact && !f.exact) {  // quantized again: b = 0, a the group's step, each code within half a step
          ++requantized;
          ok = b == 0.0f && std::fabs(a - wmax / 127.0f) <= 1e-6f * wmax;
          for (std::size_t i = 0; i < 32 && ok; ++i) {
            ok = std::fabs(a * code_at(words, at.w_code(n, g * 32 + i)) - w[n * at.k + g * 32 + i]) <= 0.5001f * a;
          }
        }
        if (!ok && wrong++ == 0) first = "row " + std::to_string(n) + " group " + std::to_string(g);
      }
    }
    EXPECT_EQ(wrong, 0u) << f.kernel << ": first at " << first;
    if (f.exact) {
      EXPECT_EQ(requantized, 0u);
    }
    // x's codes and scales are the first stage's: NaN here.
    for (std::size_t word = at.x_code(0, 0) / 4; word < words.size(); ++word) {
      ASSERT_EQ(words[word], 0x7fc00000u) << "word " << word;
    }
  }
}

// The numbers the GEMM makes of the two stages' output, sum over groups of
// dx*a*(integer product) - sx*b, in double, against the double reference,
// within the path's tolerance on random and adversarial inputs; and x's
// codes as quantize_x_q8.comp documents them.
TEST_P(Int8Stage, CodesMultiplyWithinTheirTolerance) {
  const auto& f = GetParam();
  const auto shape = test_shape(f);
  const Layout at{shape[0], shape[1], shape[2]};
  const auto config = int8_config(kernel(), shape);
  const auto tolerance = kernel().variant_tolerance(config, shape);
  for (const auto kind : {ref::InputKind::random, ref::InputKind::adversarial}) {
    const std::uint64_t seed = std::random_device{}();
    const char* kind_name = kind == ref::InputKind::random ? "random" : "adversarial";
    std::cout << f.kernel << " " << kind_name << " seed " << seed << "\n";
    const auto problem = kernel().make_problem(shape, kernels::Inputs{seed, kind});
    const auto xw = run_stage(kernel(), config, shape, 0, problem);
    const auto ww = run_stage(kernel(), config, shape, 1, problem);
    std::vector<float> x(at.m * at.k);
    std::memcpy(x.data(), problem.buffers[0].bytes.data(), x.size() * 4);
    // x: dx = max|x|/127 over the group, each code within half a step of x/dx, sx = dx * the codes' sum.
    std::size_t wrong_x = 0;
    for (std::size_t m = 0; m < at.m; ++m) {
      for (std::size_t g = 0; g < at.k / 32; ++g) {
        float amax = 0.0f;
        long sum = 0;
        for (std::size_t i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[m * at.k + g * 32 + i]));
        const float dx = float_at(xw, at.x_scale(m, g)), sx = float_at(xw, at.x_scale(m, g) + 1);
        bool ok = dx == amax * (1.0f / 127.0f);
        for (std::size_t i = 0; i < 32; ++i) {
          const int c = code_at(xw, at.x_code(m, g * 32 + i));
          sum += c;
          const double scaled = amax > 0 ? 127.0 * x[m * at.k + g * 32 + i] / amax : 0.0;
          ok = ok && std::fabs(c - scaled) <= 0.5001;
        }
        ok = ok && sx == dx * static_cast<float>(sum);
        wrong_x += ok ? 0 : 1;
      }
    }
    EXPECT_EQ(wrong_x, 0u) << "x groups quantized otherwise than documented";

    double err2 = 0, ref2 = 0, err_max = 0, ref_max = 0;
    for (std::size_t m = 0; m < at.m; ++m) {
      for (std::size_t n = 0; n < at.n; ++n) {
        double y = 0;
        for (std::size_t g = 0; g < at.k / 32; ++g) {
          long p = 0, xs = 0;
          for (std::size_t i = 0; i < 32; ++i) {
            p += code_at(xw, at.x_code(m, g * 32 + i)) * code_at(ww, at.w_code(n, g * 32 + i));
            xs += code_at(xw, at.x_code(m, g * 32 + i));
          }
          const double dx = float_at(xw, at.x_scale(m, g)), a = float_at(ww, at.w_scale(n, g));
          const double b = float_at(ww, at.w_scale(n, g) + 1);
          y += dx * a * static_cast<double>(p) - dx * static_cast<double>(xs) * b;
        }
        const double r = problem.expected[m * at.n + n];
        err2 += (y - r) * (y - r);
        ref2 += r * r;
        err_max = std::max(err_max, std::fabs(y - r));
        ref_max = std::max(ref_max, std::fabs(r));
      }
    }
    const double rel_l2 = std::sqrt(err2 / ref2), max_rel = err_max / ref_max;
    std::cout << "  relative L2 " << rel_l2 << ", largest error " << max_rel << " of the largest output\n";
    EXPECT_LE(rel_l2, tolerance.rel_l2) << kind_name;
    EXPECT_LE(max_rel, tolerance.max_rel) << kind_name;
    // Not a vacuous bound: the 8-bit rounding shows.
    EXPECT_GT(rel_l2, 1e-5) << kind_name;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Int8Stage, ::testing::ValuesIn(kFormats), format_name);

}  // namespace
}  // namespace int8_stage_test
}  // namespace vktune
