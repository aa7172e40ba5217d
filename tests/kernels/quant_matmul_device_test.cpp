// The GGUF-quantized matmuls (kernels/quant_matmul.hpp) on the test device
// (VKTUNE_TEST_DEVICE, else 0): a covering array of every path at every
// check shape, a deliberately wrong reference that must fail, and the
// integer-dot decode paths (matvec_quant_q8*.comp and the formats' dedicated
// layouts) at shapes the check shapes do not reach.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "quant_formats.hpp"
#include "reference/gguf_types.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "engine/template_library.hpp"

namespace vktune {
namespace {

using kernels::Shape;
using quant_matmul_testing::Format;
using quant_matmul_testing::format_name;
using quant_matmul_testing::kFormats;
using quant_matmul_testing::label;
using testing_support::test_device_index;
using testing_support::WrongReference;

class QuantMatmulDevice : public testing_support::DeviceSuite<Format> {};

// W_STAGE > 0 with a row group of one whole subgroup of the test device (the
// H200's staged rule, 32 lanes there, at the test device's width).
bool whole_subgroup_rows(const kernels::Config& c, const vk::DeviceInfo& device) {
  const auto smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
  return c.at("W_STAGE") == 0 || static_cast<std::uint32_t>(c.at("THREADS_PER_ROW")) == smallest;
}

// `vktune check --variants covering --space full` at the check shapes (the
// name keeps ci/build-and-test.sh's 'EveryValidVariant' exclusion: the gate
// validates these kernels there).
TEST_P(QuantMatmulDevice, EveryValidVariantPairCoveredAtEveryCheckShape) {
  const auto failures = testing_support::check_covering_variants(*instance_, kernels::find_kernel(GetParam().kernel));
  EXPECT_TRUE(failures.empty()) << failures;
}

// The integer paths' segment loop at M=2 (two x rows per workgroup): K = 4352
// spans two segments of 4096 (the staged template too where the rows are
// 16-byte aligned): a pairwise covering array of each integer path's
// configs of 64 invocations that the H200's pruning keeps (a staged row
// group one subgroup wide): these timed out on a loaded 2-core machine.
TEST_P(QuantMatmulDevice, QuantizedActivationsAcrossSegments) {
  const auto& k = kernels::find_kernel(GetParam().kernel);
  const Shape shape{2, 9, 4352};
  vk::Device device(*instance_, test_device_index());
  const auto configs = testing_support::covering_of(k, shape, device.info(), [&](const kernels::Config& c) {
    return c.at("X_QUANT") == 1 && c.at("COLS_PER_PASS") == 2 && c.at("WG_SIZE") == 64 &&
           whole_subgroup_rows(c, device.info()) &&
           testing_support::kept_by_h200_pruning(k, c, shape, "quant_matmul.staged-whole-subgroup");
  });
  ASSERT_FALSE(configs.empty());
  const auto failures = testing_support::failing_variants(*instance_, k, shape, configs, 77);
  std::string text;
  for (const auto& f : failures) text += f + "\n";
  EXPECT_TRUE(failures.empty()) << text;
}

// The staged template (W_STAGE > 0) on aligned rows spanning two x segments
// of 4096 (and, at M=1, one of 16384); N = 9 is no multiple of the rows per
// workgroup. M = 1 (one x row, the long segment) and 5 (a second pass, part
// empty); the gate's check shapes take M = 1 and 3 with one segment. The
// other M of the decode space took 160 s of CI's test time with the shader
// cache disabled and add no code path of their own.
TEST_P(QuantMatmulDevice, StagedWeightsAtDecodeM1And5) {
  const auto& k = kernels::find_kernel(GetParam().kernel);
  const std::uint32_t kk = GetParam().block_weights == 32 || GetParam().type == ref::GgmlType::Q5_K ? 4352 : 6144;
  vk::Device device(*instance_, test_device_index());
  std::string text;
  for (const std::uint32_t m : {1u, 5u}) {
    const Shape shape{m, 9, kk};
    // One pass up to M=4, two passes of 4 above (8 x rows of 4096 values
    // would not fit the 32 KiB of shared memory of a CPU driver); else, where
    // nothing of that fits (Q6_K's 1680-byte runs), any valid pass width.
    std::uint32_t cols = 1;
    while (cols < std::min(m, 4u)) cols *= 2;
    // A pairwise covering array of those configs that the H200's pruning
    // keeps (a staged row group one subgroup wide): these timed out on a
    // loaded 2-core machine.
    const auto staged = [&](const kernels::Config& c, bool width) {
      return c.at("W_STAGE") != 0 && (c.at("X_SEGMENT") == 4096 || m == 1) && c.at("WG_SIZE") == 64 &&
             c.at("SUBGROUP_SIZE") == 0 && (!width || c.at("COLS_PER_PASS") == static_cast<int>(cols)) &&
             whole_subgroup_rows(c, device.info()) &&
             testing_support::kept_by_h200_pruning(k, c, shape, "quant_matmul.staged-whole-subgroup");
    };
    auto configs =
        testing_support::covering_of(k, shape, device.info(), [&](const auto& c) { return staged(c, true); });
    if (configs.empty()) {
      configs = testing_support::covering_of(k, shape, device.info(), [&](const auto& c) { return staged(c, false); });
    }
    // Only Q6_K can be left with none: from M=5 (at least 4 x rows per pass)
    // its runs of 8 rows plus the quantized x exceed 32 KiB.
    if (configs.empty() && GetParam().type == ref::GgmlType::Q6_K && m >= 5) continue;
    ASSERT_FALSE(configs.empty()) << label(GetParam().kernel, shape);
    for (const auto& f : testing_support::failing_variants(*instance_, k, shape, configs, 78 + m)) text += f + "\n";
  }
  EXPECT_TRUE(text.empty()) << text;
}

// The pair template (BLOCK_PAIRS=1, Q4_0 and Q8_0) and the super-block
// templates (SUPER_BLOCK=1, Q5_K and Q6_K) across the decode space's M on
// rows of 17 groups of 8 blocks or 17 super-blocks (K = 4352; Q6_K's rows
// then start at every even byte offset of a 16-byte vector): two x segments of 4096, and at M=1 one of 16384
// (segments of 4096 at M=1 take the code paths M=3 takes);
// after the unrolled steps one or two are left. N = 9 is no multiple of the
// rows per workgroup; the check shapes have one segment. The M taken: 1 (the
// long segment) and 5 (a second pass of one row, part empty); the gate's
// check shapes take M = 1 and 3 with one segment. With the Mesa shader cache
// disabled, Q6_K's M = 1 to 8 took 500 s of CI and 1, 3, 4, 5, 8 still 230 s.
// Two tests so that ctest runs them side by side.
std::string block_layout_failures(vk::Instance& instance, const Format& format,
                                  std::initializer_list<std::uint32_t> ms) {
  const auto& k = kernels::find_kernel(format.kernel);
  const std::string layout = format.block_weights == 32 ? "BLOCK_PAIRS" : "SUPER_BLOCK";
  vk::Device device(instance, test_device_index());
  std::string text;
  for (const std::uint32_t m : ms) {
    const Shape shape{m, 9, 4352};
    // 16 rows of 128 invocations: 4 and 8 groups side by side (2 and 4 rows
    // per invocation), UNROLL 1 and 2 (what the H200's pruning keeps); every
    // pass width that fits; pairwise.
    // Q4_K at M = 5: its exact layout only (X_QUANT=0, which only Q4_K has);
    // the shared walk at M = 5 is the other formats' test, and Q4_K's part
    // of it (units in, sums out) does not depend on M. With both layouts
    // this was CI's longest test (70 s of a loaded run).
    const bool exact_only = format.kernel == "matmul_q4k" && m > 1;
    // At M = 5, UNROLL=1 only: unrolling the walk over a row's blocks is the
    // same code at any M (M = 1 covers UNROLL=2), and the two M = 5 tests
    // of the K-quant formats were CI's longest (45 s of a loaded run).
    const auto configs = testing_support::covering_of(k, shape, device.info(), [&](const kernels::Config& c) {
      return c.at(layout) == 1 && (c.at("X_SEGMENT") == (m == 1 ? 16384 : 4096)) && c.at("WG_SIZE") == 128 &&
             c.at("ROWS_PER_WG") == 16 && c.at("SUBGROUP_SIZE") == 0 && (!exact_only || c.at("X_QUANT") == 0) &&
             (m == 1 || c.at("UNROLL") == 1) && testing_support::kept_by_h200_pruning(k, c, shape);
    });
    if (configs.empty()) return label(format.kernel, shape) + ": no valid variant of the layout\n";
    for (const auto& f : testing_support::failing_variants(instance, k, shape, configs, 90 + m)) text += f + "\n";
  }
  return text;
}

TEST_P(QuantMatmulDevice, BlockPairsAtDecodeM1) {
  const auto text = block_layout_failures(*instance_, GetParam(), {1});
  EXPECT_TRUE(text.empty()) << text;
}

TEST_P(QuantMatmulDevice, BlockPairsAtDecodeM5) {
  const auto text = block_layout_failures(*instance_, GetParam(), {5});
  EXPECT_TRUE(text.empty()) << text;
}

// The baseline against a reference with its largest output scaled, at the
// first decode and the first prefill check shape: a wrong result.
void expect_wrong_reference_fails(vk::Instance& instance, const std::string& kernel) {
  const WrongReference wrong(kernels::find_kernel(kernel));
  const auto templates = TemplateLibrary::embedded();
  SilentProgress progress;
  TuneSession session(instance, test_device_index(), nullptr, templates, progress);
  const auto checks = wrong.check_shapes();
  const auto prefill =
      std::find_if(checks.begin(), checks.end(), [&](const Shape& s) { return wrong.space_index(s) == 1; });
  ASSERT_NE(prefill, checks.end()) << kernel << " has no prefill check shape";
  for (const auto& shape : {checks.at(0), *prefill}) {
    const auto result = session.check(wrong, shape, {wrong.baseline(shape)}, 7);
    ASSERT_EQ(result.outcomes.size(), 1u);
    EXPECT_EQ(result.outcomes[0].status, results::Status::wrong_result)
        << label(kernel, shape) << ": " << result.outcomes[0].reason;
  }
}

TEST_P(QuantMatmulDevice, AWrongReferenceFails) { expect_wrong_reference_fails(*instance_, GetParam().kernel); }

INSTANTIATE_TEST_SUITE_P(Kernels, QuantMatmulDevice, ::testing::ValuesIn(kFormats), format_name);

// The fp16-activation kernels (kernels/half_activations.hpp), halves in and
// out: the gate's covering array of every path at every check shape (named
// for ci/build-and-test.sh's 'EveryValidVariant' exclusion, as above), and a
// wrong reference caught through the halves read back.
class QuantMatmulHalfDevice : public testing_support::DeviceSuite<Format> {};

TEST_P(QuantMatmulHalfDevice, EveryValidVariantPairCoveredAtEveryCheckShape) {
  const auto failures = testing_support::check_covering_variants(*instance_, kernels::find_kernel(GetParam().kernel));
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST_P(QuantMatmulHalfDevice, AWrongReferenceFails) { expect_wrong_reference_fails(*instance_, GetParam().kernel); }

INSTANTIATE_TEST_SUITE_P(Kernels, QuantMatmulHalfDevice, ::testing::ValuesIn(quant_matmul_testing::kHalfFormats),
                         format_name);

}  // namespace
}  // namespace vktune
