// The GGUF-quantized matmuls that share kernels/quant_matmul.hpp and the
// generic templates matvec_quant.comp / matmul_quant.comp (matmul_q8_0,
// matmul_q4_0, matmul_q6k, matmul_q5k, matmul_q4k): shapes, spaces, plans,
// constraints and pruning on an H200-like device, and the reference problem.
// On the test device: quant_matmul_device_test.cpp; the fp16- and
// SwiGLU-activation kernels: quant_matmul_activations_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "reference/gguf_types.hpp"
#include "reference/matmul.hpp"
#include "tuner/space.hpp"
#include "kernel_test_support.hpp"
#include "quant_formats.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using testing_support::define_value;
using testing_support::h200_like;
using testing_support::pruned_by;
using testing_support::test_device_index;
using quant_matmul_testing::Format;
using quant_matmul_testing::format_name;
using quant_matmul_testing::kFormats;
using quant_matmul_testing::label;

// The family's generic decode baseline (matvec_quant.comp) at `shape`, as
// kernels/quant_matmul.cpp writes it: Q4_K's own baseline is its exact
// layout (the shader it had before it joined the family).
Config generic_baseline(const kernels::Kernel& k, const Shape& shape) {
  auto config = k.baseline(shape);
  if (config.count("SUPER_BLOCK") && config.at("SUPER_BLOCK") == 1) {
    const std::uint32_t units = shape[2] / 256 * 32;
    config["SUPER_BLOCK"] = 0;
    config["THREADS_PER_ROW"] = units >= 8 ? 8 : 4;
    config["ROWS_PER_WG"] = 64 / config["THREADS_PER_ROW"];
    config["UNROLL"] = units >= 16 ? 2 : 1;
  }
  return config;
}

class QuantMatmul : public ::testing::TestWithParam<Format> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam().kernel); }
  std::uint64_t row_bytes(std::uint32_t k) const { return k / GetParam().block_weights * GetParam().block_bytes; }
};

TEST_P(QuantMatmul, RejectsBadShapes) {
  const auto bw = GetParam().block_weights;
  EXPECT_EQ(kernel().shape_dims(), (std::vector<std::string>{"M", "N", "K"}));
  EXPECT_THROW(kernel().validate_shape({1, 64}), Error);
  try {
    kernel().validate_shape({1, 64, bw + 16});
    FAIL() << "K not a whole number of blocks accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("is not a multiple of " + std::to_string(bw)), std::string::npos)
        << e.what();
  }
  try {
    kernel().validate_shape({0, 64, bw});
    FAIL() << "M=0 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("M must be positive"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel().validate_shape({1, 1u << 20, 16384}), Error) << "more than 2^32 weight bytes accepted";
  EXPECT_NO_THROW(kernel().validate_shape({5, 7, 2 * bw}));
}

TEST_P(QuantMatmul, DecodeUpToEightRowsPrefillAbove) {
  const auto bw = GetParam().block_weights;
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({1, 64, bw})).name, "decode");
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({8, 64, bw})).name, "decode");
  EXPECT_EQ(kernel().spaces().at(kernel().space_index({9, 64, bw})).name, "prefill");
}

TEST_P(QuantMatmul, MetricsCountWeightsInputsOutputs) {
  const auto k = 2 * GetParam().block_weights;
  const auto m = kernel().metrics({2, 9, k});
  EXPECT_DOUBLE_EQ(m.bytes, 9.0 * row_bytes(k) + 2.0 * k * 4 + 2 * 9 * 4);
  EXPECT_DOUBLE_EQ(m.flops, 2.0 * 2 * 9 * k);
  // The weights buffer is padded to whole 16-byte vectors.
  EXPECT_EQ(kernel().device_bytes({2, 9, k}), (9 * row_bytes(k) + 15) / 16 * 16 + 2 * k * 4 + 2 * 9 * 4);
}

TEST_P(QuantMatmul, PlansPutNOnXAndMOnYAndSelectTheBlockType) {
  const Shape decode{3, 4096, 4096};
  auto plan = kernel().plan(generic_baseline(kernel(), decode), decode);
  EXPECT_EQ(plan.template_file, "matvec_quant.comp");
  EXPECT_EQ(define_value(plan, "QTYPE"), std::to_string(GetParam().qtype));
  EXPECT_EQ(plan.dispatch[0].shape_dim, 1);
  EXPECT_EQ(plan.dispatch[1].shape_dim, 0);
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, decode), (std::array<std::uint32_t, 3>{512, 1, 1}));
  // Every parameter and QTYPE, but X_SCOPE at 0 (the template's default,
  // left undefined so those shaders are those of before it).
  EXPECT_EQ(plan.defines.size(), kernel().spaces()[0].parameters.size());
  EXPECT_EQ(define_value(plan, "X_SCOPE"), "");

  const Shape prefill{512, 14336, 4096};
  plan = kernel().plan(kernel().baseline(prefill), prefill);
  EXPECT_EQ(plan.template_file, "matmul_quant.comp");
  EXPECT_EQ(define_value(plan, "QTYPE"), std::to_string(GetParam().qtype));
  EXPECT_EQ(plan.local_size, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, prefill), (std::array<std::uint32_t, 3>{224, 8, 1}));
  EXPECT_GT(plan.shared_memory_bytes, 0u);
  // Every parameter but DEQUANT_STAGE, DQ_WG and DQ_RUN (defined on their path only), and QTYPE.
  EXPECT_EQ(plan.defines.size(),
            kernel().spaces()[1].parameters.size() - kernels::quant_coopmat::dequant_parameters(true).size() + 1);
}

// Few check shapes, both spaces among them. (The space sizes at them used to
// be bounded here to keep a gate of every valid variant small; the gate is a
// pairwise covering array now, whose size the space's does not set.)
TEST_P(QuantMatmul, CheckShapesCoverBothSpaces) {
  const auto checks = kernel().check_shapes();
  EXPECT_LE(checks.size(), 4u);
  bool decode = false, prefill = false;
  for (const auto& shape : checks) (kernel().space_index(shape) == 0 ? decode : prefill) = true;
  EXPECT_TRUE(decode && prefill);
}

// The valid configs at the default shapes on the H200-like devices, as
// counted at commit 353b8cf (before the rules drawn from H200 measurements
// became pruning rules keyed to NVIDIA): pruning reproduces them exactly,
// and the full space (no pruning) holds every one of them.
TEST_P(QuantMatmul, PrunedSpacesAtDefaultShapesAreThoseOfBefore) {
  // Decode at 1×4096×4096, 1×14336×4096, 1×4096×14336; prefill (any of the
  // three) on the H200-like device and with its tensor cores.
  // Session 19 added WG_SIZE 512 to the decode space and the slot-scope x
  // path (X_SCOPE=1): the decode counts before them were 188, 188, 256
  // (Q6_K 154, 154, 217; Q4_K 280, 280, 354); WG_SIZE 512 brought them to
  // 210, 210, 285 (176, 176, 250; 312, 312, 395). Session 20 let the
  // slot-scope path's THREADS_PER_ROW=64 through on NVIDIA (its H100 best at
  // two targets): 219, 219, 294 before (Q6_K 189, 189, 263; Q5_K 219, 219,
  // 294; Q4_K 321, 321, 404).
  // Session 37 let TILE_M and TILE_N take 256: the prefill counts were 185
  // and 552 before.
  const std::map<std::string, std::array<std::size_t, 5>> counts{
      {"matmul_q8_0", {226, 226, 301, 248, 703}},
      {"matmul_q4_0", {226, 226, 301, 248, 703}},
      {"matmul_q6k", {195, 195, 272, 248, 703}},  // 142, 142, 193 before session 13 let its H100 best through
      {"matmul_q5k", {224, 224, 301, 248, 703}},
      // One of the family since session 13: Q5_K's counts and its exact layout (matvec_q4k.comp).
      {"matmul_q4k", {326, 326, 411, 248, 703}},
  };
  // Session 40 added the int8 path (DEQUANT_STAGE=3), pruned on NVIDIA's
  // devices (123 configs at each prefill shape with tensor cores otherwise:
  // int8_stage_test.cpp).
  testing_support::expect_pruned_counts(kernel(), counts.at(GetParam().kernel));
}

TEST_P(QuantMatmul, QuantizedActivationsHaveTheirOwnTemplateAndTolerance) {
  auto device = h200_like();
  const Shape decode{1, 4096, 14336};
  auto config = generic_baseline(kernel(), decode);
  EXPECT_EQ(config.at("X_QUANT"), 0);
  EXPECT_EQ(kernel().variant_tolerance(config, decode).rel_l2, kernel().tolerance(decode).rel_l2);
  config["X_QUANT"] = 1;
  config["X_SEGMENT"] = 16384;
  ASSERT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(plan.template_file, "matvec_quant_q8.comp");
  EXPECT_GE(plan.shared_memory_bytes, 16384u);
  EXPECT_GT(kernel().variant_tolerance(config, decode).rel_l2, kernel().tolerance(decode).rel_l2);
  // A segment longer than K only costs shared memory (pruned on every
  // device); the fp32 path has none (illegal).
  EXPECT_EQ(kernel().constraint_violation(config, Shape{1, 4096, 4096}, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), config, Shape{1, 4096, 4096}, device), "x_q8.segment-past-k");
  auto exact = generic_baseline(kernel(), decode);
  exact["X_SEGMENT"] = 16384;
  EXPECT_NE(kernel().constraint_violation(exact, decode, device).detail, "");
  device.features.integer_dot_product = false;
  EXPECT_NE(kernel().constraint_violation(config, decode, device).detail.find("shaderIntegerDotProduct"), std::string::npos);
}

// W_STAGE > 0: the staged template, on rows that are 16-byte aligned only.
TEST_P(QuantMatmul, StagedWeightsNeedAlignedRows) {
  const auto device = h200_like();
  const Shape decode{1, 14336, 4096};
  auto config = generic_baseline(kernel(), decode);
  config["WG_SIZE"] = 256;
  config["THREADS_PER_ROW"] = 32;
  config["ROWS_PER_WG"] = 8;
  config["UNROLL"] = 1;
  config["COLS_PER_PASS"] = 1;
  config["X_QUANT"] = 1;
  config["W_STAGE"] = 2048;
  ASSERT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(plan.template_file, "matvec_quant_q8_staged.comp");
  const auto blocks = std::stoul(define_value(plan, "STAGE_BLOCKS"));
  const auto vec4s = std::stoul(define_value(plan, "STAGE_VEC4S"));
  EXPECT_GT(blocks, 0u);
  EXPECT_EQ(blocks * GetParam().block_bytes, vec4s * 16);
  EXPECT_LE(vec4s * 16, 2048u);
  // Staged weights plus the quantized x (4096 values, 5120 bytes, one row).
  EXPECT_EQ(plan.shared_memory_bytes, 8 * vec4s * 16 + 5120);

  auto unstaged = config;
  unstaged["W_STAGE"] = 0;
  EXPECT_EQ(kernel().plan(unstaged, decode).template_file, "matvec_quant_q8.comp");
  auto exact = config;
  exact["X_QUANT"] = 0;
  EXPECT_NE(kernel().constraint_violation(exact, decode, device).detail.find("X_QUANT=1"), std::string::npos);
  auto unrolled = config;  // consecutive units per lane: up to 4 (a Q4_0 block)
  unrolled["UNROLL"] = 4;
  EXPECT_EQ(kernel().constraint_violation(unrolled, decode, device).detail, "");
  unstaged["UNROLL"] = 4;  // never among the best on the H200
  EXPECT_EQ(kernel().constraint_violation(unstaged, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), unstaged, decode, device), "quant_matmul.x-q8-unroll4");
  unstaged["UNROLL"] = 1;
  auto narrow = config;  // on the H200 a row group is one subgroup (32 lanes)
  narrow["THREADS_PER_ROW"] = 16;
  narrow["ROWS_PER_WG"] = 16;
  EXPECT_EQ(kernel().constraint_violation(narrow, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), narrow, decode, device), "quant_matmul.staged-whole-subgroup");
  auto wide = config;  // more than a subgroup: its barriers cannot order the row group
  wide["THREADS_PER_ROW"] = 64;
  wide["WG_SIZE"] = 128;
  wide["ROWS_PER_WG"] = 16;
  EXPECT_NE(kernel().constraint_violation(wide, decode, device).detail.find("subgroup"), std::string::npos);

  // Every check shape list holds a shape the staged template runs at.
  bool staged_checked = false;
  for (const auto& shape : kernel().check_shapes()) {
    if (kernel().space_index(shape) != 0) continue;
    for (const auto& c : enumerate_space(kernel(), shape, device).valid) staged_checked |= c.at("W_STAGE") != 0;
  }
  EXPECT_TRUE(staged_checked);

  // A row of one more 32-weight block (or 17 Q6_K super-blocks) is not
  // 16-byte aligned; Q5_K and Q4_K rows always are.
  if (GetParam().type == ref::GgmlType::Q5_K || GetParam().type == ref::GgmlType::Q4_K) return;
  const Shape unaligned{1, 14336, GetParam().block_weights == 32 ? 4096u + 32u : 4352u};
  const auto reason = kernel().constraint_violation(config, unaligned, device).detail;
  EXPECT_NE(reason.find("not a multiple of 16"), std::string::npos) << reason;
  EXPECT_EQ(kernel().constraint_violation(unstaged, unaligned, device).detail, "");
}

// BLOCK_PAIRS=1 (Q4_0 and Q8_0 only): templates/matvec_q4_0_q8.comp, an
// integer-dot path beside W_STAGE's, on rows of K % 256 == 0 (groups of 8
// blocks 16-byte aligned); ROWS_PER_WG=32 only there.
TEST_P(QuantMatmul, BlockPairsOnAlignedRowsOnly) {
  auto device = h200_like();
  const Shape decode{1, 14336, 4096};
  const auto params = kernel().spaces()[0].parameters;
  const bool has = std::any_of(params.begin(), params.end(), [](const auto& p) { return p.name == "BLOCK_PAIRS"; });
  EXPECT_EQ(has, GetParam().block_weights == 32);
  auto config = kernel().baseline(decode);
  if (!has) {
    config["ROWS_PER_WG"] = 32;  // on NVIDIA only with SUPER_BLOCK=1
    EXPECT_NE(pruned_by(kernel(), config, decode, device), "");
    return;
  }
  EXPECT_EQ(config.at("BLOCK_PAIRS"), 0);
  config["WG_SIZE"] = 256;
  config["THREADS_PER_ROW"] = 16;
  config["ROWS_PER_WG"] = 32;
  config["UNROLL"] = 2;
  config["COLS_PER_PASS"] = 1;
  config["X_QUANT"] = 1;
  config["BLOCK_PAIRS"] = 1;
  ASSERT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(plan.template_file, "matvec_q4_0_q8.comp");
  EXPECT_EQ(define_value(plan, "QTYPE"), std::to_string(GetParam().qtype));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, decode), (std::array<std::uint32_t, 3>{448, 1, 1}));
  // The quantized x (4096 values, 5120 bytes) and 4 groups' partial sums of 32 rows.
  EXPECT_EQ(plan.shared_memory_bytes, 5120u + 4 * 4 * 32);
  EXPECT_GT(kernel().variant_tolerance(config, decode).rel_l2, kernel().tolerance(decode).rel_l2);

  auto generic = config;  // 32 rows per workgroup are the pair path's only on NVIDIA
  generic["BLOCK_PAIRS"] = 0;
  EXPECT_EQ(pruned_by(kernel(), generic, decode, device), "quant_matmul.rows32-dedicated-only");
  auto exact = config;
  exact["X_QUANT"] = 0;
  EXPECT_NE(kernel().constraint_violation(exact, decode, device).detail.find("X_QUANT=1"), std::string::npos);
  auto staged = config;
  staged["W_STAGE"] = 1024;
  EXPECT_NE(kernel().constraint_violation(staged, decode, device).detail, "");
  // What matmul_q4k's integer path won with on the H200, pruned on NVIDIA:
  // 4 invocations per group, 4 or 8 groups side by side; 2 or more rows per
  // invocation (an x word serving them all). UNROLL 4 is pruned everywhere
  // (2 rows * 4 pairs in flight).
  auto narrow = config;
  narrow["THREADS_PER_ROW"] = 8;
  EXPECT_EQ(kernel().constraint_violation(narrow, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), narrow, decode, device), "quant_matmul.dedicated-threads");
  // 16 groups side by side: on NVIDIA only where each slot quantizes its own
  // x (this config was Q4_0's best at 1x4096x14336 in the full space on an
  // H100).
  auto wide = config;
  wide["THREADS_PER_ROW"] = 64;
  wide["WG_SIZE"] = 512;
  wide["UNROLL"] = 1;
  EXPECT_EQ(kernel().constraint_violation(wide, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), wide, decode, device), "quant_matmul.dedicated-threads");
  wide["X_SCOPE"] = 1;
  wide["X_SEGMENT"] = 4096;
  ASSERT_EQ(kernel().constraint_violation(wide, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), wide, decode, device), "");
  auto heavy = config;
  heavy["UNROLL"] = 4;
  EXPECT_EQ(kernel().constraint_violation(heavy, decode, device).detail, "");
  EXPECT_NE(pruned_by(kernel(), heavy, decode, testing_support::h200_like_other_vendor()), "");
  auto single = config;
  single["ROWS_PER_WG"] = 16;
  EXPECT_EQ(pruned_by(kernel(), single, decode, device), "quant_matmul.dedicated-one-row");
  // Only 4 invocations meet in shuffles: a subgroup of 8 (a CPU driver's) runs 16 per row.
  device.subgroup_size = device.min_subgroup_size = device.max_subgroup_size = 8;
  EXPECT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  auto sixteen = config;
  sixteen["BLOCK_PAIRS"] = 0;
  sixteen["ROWS_PER_WG"] = 16;
  EXPECT_NE(kernel().constraint_violation(sixteen, decode, device).detail.find("subgroup"), std::string::npos);
  device = h200_like();

  // Rows of one more block than a multiple of 8 are only 2-byte aligned.
  const Shape unaligned{1, 14336, 4096 + 32};
  const auto reason = kernel().constraint_violation(config, unaligned, device).detail;
  EXPECT_NE(reason.find("not a multiple of 16"), std::string::npos) << reason;
  EXPECT_NE(reason.find("K must be a multiple of 256"), std::string::npos) << reason;

  // Every check shape list holds a shape the pair template runs at.
  bool checked = false;
  for (const auto& shape : kernel().check_shapes()) {
    if (kernel().space_index(shape) != 0) continue;
    for (const auto& c : enumerate_space(kernel(), shape, device).valid) checked |= c.at("BLOCK_PAIRS") == 1;
  }
  EXPECT_TRUE(checked);
}

// SUPER_BLOCK=1 (Q5_K, Q6_K and Q4_K): templates/matvec_q5k_q8.comp,
// matvec_q6k_q8.comp and matvec_q4k_q8.comp, integer-dot paths beside
// W_STAGE's, 4 invocations per super-block and THREADS_PER_ROW/4
// super-blocks side by side; ROWS_PER_WG=32 only there. Q4_K's also serves
// X_QUANT=0 (matvec_q4k.comp). Q5_K rows are always 16-byte aligned; Q6_K's template realigns
// any row (its blocks are 2-byte aligned); short rows limit the slots.
TEST_P(QuantMatmul, SuperBlocksForKQuants) {
  auto device = h200_like();
  const Shape decode{1, 14336, 4096};
  const auto params = kernel().spaces()[0].parameters;
  const bool has = std::any_of(params.begin(), params.end(), [](const auto& p) { return p.name == "SUPER_BLOCK"; });
  const bool q6k = GetParam().type == ref::GgmlType::Q6_K;
  const bool q4k = GetParam().type == ref::GgmlType::Q4_K;
  EXPECT_EQ(has, GetParam().block_weights == 256);
  if (!has) return;
  // Q4_K's baseline is its exact layout (8 invocations per super-block, 2 side by side).
  const auto baseline = kernel().baseline(decode);
  EXPECT_EQ(baseline.at("SUPER_BLOCK"), q4k ? 1 : 0);
  if (q4k) {
    EXPECT_EQ(kernel().plan(baseline, decode).template_file, "matvec_q4k.comp");
    EXPECT_EQ(baseline.at("THREADS_PER_ROW"), 16);
    const Shape one_block{1, 14336, 256};  // one slot
    EXPECT_EQ(kernel().baseline(one_block).at("THREADS_PER_ROW"), 8);
    EXPECT_EQ(kernel().constraint_violation(kernel().baseline(one_block), one_block, h200_like()).detail, "");
  }
  auto config = generic_baseline(kernel(), decode);
  config["WG_SIZE"] = 256;
  config["THREADS_PER_ROW"] = 16;
  config["ROWS_PER_WG"] = 32;
  config["UNROLL"] = 1;
  config["COLS_PER_PASS"] = 1;
  config["X_QUANT"] = 1;
  config["SUPER_BLOCK"] = 1;
  ASSERT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(plan.template_file, q6k ? "matvec_q6k_q8.comp" : q4k ? "matvec_q4k_q8.comp" : "matvec_q5k_q8.comp");
  EXPECT_EQ(define_value(plan, "QTYPE"), std::to_string(GetParam().qtype));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, decode), (std::array<std::uint32_t, 3>{448, 1, 1}));
  // The quantized x (4096 values, 5120 bytes) and 4 slots' partial sums of 32 rows.
  EXPECT_EQ(plan.shared_memory_bytes, 5120u + 4 * 4 * 32);
  EXPECT_GT(kernel().variant_tolerance(config, decode).rel_l2, kernel().tolerance(decode).rel_l2);
  auto wide = config;  // 8 slots, 2 super-blocks per slot and step
  wide["THREADS_PER_ROW"] = 32;
  wide["ROWS_PER_WG"] = 16;
  wide["UNROLL"] = 2;
  EXPECT_EQ(kernel().constraint_violation(wide, decode, device).detail, "");

  auto generic = config;  // 32 rows per workgroup are the super-block path's only on NVIDIA
  generic["SUPER_BLOCK"] = 0;
  EXPECT_EQ(pruned_by(kernel(), generic, decode, device), "quant_matmul.rows32-dedicated-only");
  auto exact = config;  // Q4_K's exact layout (matvec_q4k.comp, 8 parts); the others have none
  exact["X_QUANT"] = 0;
  exact["X_SEGMENT"] = 4096;
  if (q4k) {
    ASSERT_EQ(kernel().constraint_violation(exact, decode, device).detail, "");
    const auto exact_plan = kernel().plan(exact, decode);
    EXPECT_EQ(exact_plan.template_file, "matvec_q4k.comp");
    EXPECT_EQ(exact_plan.shared_memory_bytes, 4u * 2 * 32);  // 2 slots' partial sums of 32 rows
    EXPECT_EQ(kernel().variant_tolerance(exact, decode).rel_l2, kernel().tolerance(decode).rel_l2);
    auto odd = exact;
    odd["THREADS_PER_ROW"] = 4;
    odd["WG_SIZE"] = 128;
    EXPECT_NE(kernel().constraint_violation(odd, decode, device).detail.find("multiple of 8"), std::string::npos);
  } else {
    EXPECT_NE(kernel().constraint_violation(exact, decode, device).detail.find("X_QUANT=1"), std::string::npos);
  }
  auto staged = config;
  staged["W_STAGE"] = 1024;
  EXPECT_NE(kernel().constraint_violation(staged, decode, device).detail.find("W_STAGE"), std::string::npos);
  // What matmul_q4k's integer path won with on the H200, pruned on NVIDIA:
  // 4 invocations per super-block, 4 or 8 side by side; 2 or more rows per
  // invocation (Q6_K also 2 side by side, and one row: its best on an H100).
  // More than 4 rows * UNROLL in flight is pruned everywhere.
  auto narrow = config;
  narrow["THREADS_PER_ROW"] = 8;
  EXPECT_EQ(kernel().constraint_violation(narrow, decode, device).detail, "");
  EXPECT_EQ(pruned_by(kernel(), narrow, decode, device), q6k ? "" : "quant_matmul.dedicated-threads");
  auto h100_best = narrow;  // Q6_K's at this shape in the full space on an H100
  h100_best["WG_SIZE"] = 128;
  h100_best["ROWS_PER_WG"] = 16;
  EXPECT_EQ(pruned_by(kernel(), h100_best, decode, device), q6k ? "" : "quant_matmul.dedicated-threads");
  auto heavy = config;  // 4 rows * UNROLL 2 chunks in flight
  heavy["WG_SIZE"] = 128;
  heavy["UNROLL"] = 2;
  EXPECT_NE(pruned_by(kernel(), heavy, decode, testing_support::h200_like_other_vendor()).find("in-flight"),
            std::string::npos);
  auto single = config;
  single["ROWS_PER_WG"] = 16;
  EXPECT_EQ(pruned_by(kernel(), single, decode, device), q6k ? "" : "quant_matmul.dedicated-one-row");
  auto four = config;  // one slot: the 4 parts of one super-block per row
  four["THREADS_PER_ROW"] = 4;
  four["WG_SIZE"] = 64;
  four["ROWS_PER_WG"] = 16;
  EXPECT_EQ(kernel().constraint_violation(four, decode, device).detail, "");
  // Only 4 invocations meet in shuffles: a subgroup of 8 (a CPU driver's) runs 16 per row.
  device.subgroup_size = device.min_subgroup_size = device.max_subgroup_size = 8;
  EXPECT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  device = h200_like();

  // Short rows: 3 super-blocks take 4 slots, not 8, and no unrolling (8
  // super-blocks per step); one super-block takes none.
  const Shape short_row{1, 14336, 768};
  EXPECT_EQ(kernel().constraint_violation(config, short_row, device).detail, "");
  const auto cpu = testing_support::h200_like_other_vendor();  // every device's pruning only
  auto unrolled = config;
  unrolled["UNROLL"] = 2;
  EXPECT_EQ(pruned_by(kernel(), unrolled, short_row, cpu), "quant_matmul.super-block-unroll-past-row");
  auto eight = wide;
  eight["UNROLL"] = 1;
  EXPECT_EQ(pruned_by(kernel(), eight, short_row, cpu), "quant_matmul.super-block-idle-slots");
  EXPECT_EQ(pruned_by(kernel(), config, Shape{1, 14336, 256}, cpu), "quant_matmul.super-block-idle-slots");
  // Rows of an odd number of super-blocks (Q6_K's only 2-byte aligned) are served too.
  EXPECT_EQ(kernel().constraint_violation(config, Shape{1, 14336, 4352}, device).detail, "");

  // Every check shape list holds a shape the super-block template runs at.
  bool checked = false;
  for (const auto& shape : kernel().check_shapes()) {
    if (kernel().space_index(shape) != 0) continue;
    for (const auto& c : enumerate_space(kernel(), shape, device).valid) checked |= c.at("SUPER_BLOCK") == 1;
  }
  EXPECT_TRUE(checked);
}

// USE_COOPMAT=1: see expect_tensor_core_prefill.
TEST_P(QuantMatmul, TensorCorePrefillOnlyWhereTheDeviceHasIt) {
  testing_support::expect_tensor_core_prefill(kernel(), {512, 4096, 14336}, GetParam().qtype);
}

TEST_P(QuantMatmul, ConstraintsRejectWhatTheDeviceCannotRun) {
  const auto device = h200_like();
  const Shape decode{1, 4096, 4096};
  auto config = generic_baseline(kernel(), decode);
  config["SUBGROUP_SIZE"] = 16;
  EXPECT_NE(kernel().constraint_violation(config, decode, device).detail, "");
  config["SUBGROUP_SIZE"] = 32;  // the device's only size: same as 0
  EXPECT_NE(kernel().constraint_violation(config, decode, device).detail, "");
  config = generic_baseline(kernel(), decode);
  config["THREADS_PER_ROW"] = 64;  // more than a subgroup for the shuffle reduction
  config["ROWS_PER_WG"] = 1;
  EXPECT_NE(kernel().constraint_violation(config, decode, device).detail.find("subgroup"), std::string::npos);
  config["REDUCTION"] = 1;
  EXPECT_EQ(kernel().constraint_violation(config, decode, device).detail, "");

  const Shape prefill{512, 4096, 4096};
  config = kernel().baseline(prefill);
  config["TILE_M"] = config["TILE_N"] = 128;
  config["TILE_K"] = 64;
  config["THREAD_M"] = config["THREAD_N"] = 8;
  const auto reason = kernel().constraint_violation(config, prefill, device).detail;
  EXPECT_NE(reason.find("shared memory"), std::string::npos) << reason;
  config.erase("TILE_K");
  EXPECT_NE(kernel().constraint_violation(config, prefill, device).detail, "");
  config["TILE_K"] = 32;
  config["UNROLL"] = 1;
  EXPECT_NE(kernel().constraint_violation(config, prefill, device).detail, "");
}

TEST_P(QuantMatmul, ProblemHoldsPaddedWeightsAndTheReference) {
  const auto k = 2 * GetParam().block_weights;
  const auto problem = kernel().make_problem({3, 5, k}, 11);
  ASSERT_EQ(problem.buffers.size(), 3u);
  EXPECT_EQ(problem.output_index, 2u);
  EXPECT_TRUE(problem.buffers[1].is_weights);
  const auto& w = problem.buffers[1].bytes;
  EXPECT_EQ(w.size(), (5 * row_bytes(k) + 15) / 16 * 16);
  std::vector<float> x(3 * k);
  std::memcpy(x.data(), problem.buffers[0].bytes.data(), x.size() * sizeof(float));
  EXPECT_EQ(problem.expected, ref::matmul_quantized(x.data(), 3, w.data(), GetParam().type, 5, k));
}

TEST_P(QuantMatmul, SampledReferenceForLargeShapes) {
  testing_support::expect_sampled_reference(kernel(), GetParam().type);
}

INSTANTIATE_TEST_SUITE_P(Kernels, QuantMatmul, ::testing::ValuesIn(kFormats), format_name);

}  // namespace
}  // namespace vktune
