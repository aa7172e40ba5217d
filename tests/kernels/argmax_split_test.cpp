// argmax's split rows (SPLIT_STEPS > 0, the "split-" paths): a workgroup per
// segment of a row, the last of the row's to finish picking the best of the
// segments' through the scratch buffer. Without a device: the paths, the
// dispatch, the legality and the scratch's size; on the test device: split
// variants on fresh inputs (printed seed), each validated three times on the
// same buffers, so that a counter left unreset by one launch fails the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <set>
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
#include "tuner/space.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;
using testing_support::h200_like;

const kernels::Kernel& argmax() { return kernels::find_kernel("argmax"); }

Config split_config(int wg, int vec, int ept, int steps) {
  return {{"WG_SIZE", wg}, {"ROWS_PER_WG", 1}, {"VEC", vec},          {"EPT", ept},
          {"REDUCTION", 0}, {"SPLIT_STEPS", steps}, {"SUBGROUP_SIZE", 0}};
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

TEST(ArgmaxSplit, EachRowWalkHasASplitPathThatBindsTheScratch) {
  std::set<std::string> names;
  for (const auto& path : argmax().spaces().front().effective_paths()) {
    names.insert(path.name);
    const bool split = path.name.starts_with("split-");
    EXPECT_EQ(path.pinned.count("SPLIT_STEPS"), split ? 0u : 1u) << path.name;
    EXPECT_EQ(path.unused_bindings, split ? std::vector<std::string>{} : std::vector<std::string>{"scratch"})
        << path.name;
    if (split) {
      EXPECT_EQ(path.pinned.at("ROWS_PER_WG"), 1) << path.name;
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"subgroup-reduction", "shared-memory-tree", "split-subgroup-reduction",
                                          "split-shared-memory-tree"}));
  EXPECT_EQ(argmax().baseline({1, 128256}).at("SPLIT_STEPS"), 0);
}

// ceil(n / segment) workgroups along x, one row of them per row along y.
TEST(ArgmaxSplit, ASplitRowIsAWorkgroupPerSegment) {
  const Shape shape{3, 128256};
  const auto config = split_config(256, 4, 2, 2);  // segments of 4096 floats
  EXPECT_EQ(argmax().constraint_violation(config, shape, h200_like()).detail, "");
  const auto groups = kernels::workgroup_counts(argmax().plan(config, shape).dispatch, shape);
  EXPECT_EQ(groups[0], ceil_div(128256, 4096));
  EXPECT_EQ(groups[1], 3u);
  EXPECT_EQ(groups[2], 1u);
}

TEST(ArgmaxSplit, ASegmentThatHoldsTheRowIsIllegal) {
  const auto v = argmax().constraint_violation(split_config(256, 4, 2, 2), {2, 4096}, h200_like());
  EXPECT_EQ(v.rule, "argmax.split_segments") << v.detail;
  EXPECT_NE(v.detail.find("4096"), std::string::npos) << v.detail;
  EXPECT_EQ(argmax().constraint_violation(split_config(256, 4, 2, 2), {2, 4097}, h200_like()).detail, "");
}

// The scratch holds a counter per row and a (value, index) pair per segment
// of every row, for every legal split config, at row lengths around the
// smallest segment's multiples.
TEST(ArgmaxSplit, TheScratchHoldsEveryLegalConfigsCountersAndPairs) {
  const auto& bindings = argmax().spaces().front().bindings;
  const auto scratch = std::find_if(bindings.begin(), bindings.end(), [](const auto& b) { return b.name == "scratch"; });
  ASSERT_NE(scratch, bindings.end());
  std::size_t split = 0;
  for (const Shape& shape : {Shape{1, 65}, Shape{3, 1000}, Shape{5, 4097}, Shape{1, 128256}, Shape{8, 32000}}) {
    const auto space = enumerate_space(argmax(), shape, h200_like(), SpaceScope::full);
    for (const auto& config : space.valid) {
      if (config.at("SPLIT_STEPS") == 0) continue;
      ++split;
      const std::uint64_t segment =
          std::uint64_t{1} * config.at("WG_SIZE") * config.at("VEC") * config.at("EPT") * config.at("SPLIT_STEPS");
      const std::uint64_t needed = 4 * shape[0] + 8 * shape[0] * ceil_div(shape[1], segment);
      EXPECT_GE(scratch->size.bytes(shape), needed) << kernels::config_to_string(config) << " at "
                                                     << kernels::shape_to_string(shape);
    }
  }
  EXPECT_GT(split, 100u);
}

// Rows of 20,000 floats (no multiple of 4: rows start misaligned for vec4),
// with maxima repeated, at the ends and after NaNs (make_problem); segments
// of 256 to 4096 floats, so 5 to 79 of them a row.
TEST(ArgmaxSplitDevice, SplitVariantsPassThreeTimesOnTheSameBuffers) {
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  const Shape shape{4, 20001};
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto problem = argmax().make_problem(shape, seed);
  DeviceProblem on_device(device, problem, 1);
  const auto templates = TemplateLibrary::embedded();
  std::size_t checked = 0;
  for (const auto& config : {split_config(64, 4, 1, 1), split_config(256, 4, 2, 2), split_config(128, 1, 4, 8),
                             Config{{"WG_SIZE", 128}, {"ROWS_PER_WG", 1}, {"VEC", 4}, {"EPT", 1}, {"REDUCTION", 1},
                                    {"SPLIT_STEPS", 4}, {"SUBGROUP_SIZE", 0}}}) {
    SCOPED_TRACE(kernels::config_to_string(config));
    const auto why = argmax().constraint_violation(config, shape, device.info()).detail;
    if (!why.empty()) {
      ADD_FAILURE() << "illegal on the test device: " << why;
      continue;
    }
    auto variant = describe_variant(argmax(), config, shape, templates);
    compile_variant(variant, templates);
    VariantRunner runner(device, variant, static_cast<std::uint32_t>(problem.buffers.size()), 2, 2);
    for (int launch = 0; launch < 3; ++launch) {
      const auto v = runner.validate(on_device, problem, argmax().tolerance(shape));
      EXPECT_TRUE(v.passed) << "launch " << launch << ": " << v.reason;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4u);
}

}  // namespace
}  // namespace vktune
