// The matmul_q6k_split kernels (kernels/matmul_q6k.cpp): matmul_q6k's
// products with W in the split layout (reference/weight_layout.hpp).
// Without a device: the problem is matmul_q6k's with its weights
// rearranged, decode shapes only, read by SUPER_BLOCK=1 alone. On the test
// device: each kernel's baseline passes on its problem and fails on the same
// weights in GGUF's order (so the template reads the split layout, not
// bytes that happen to line up), at both check shapes (odd and even counts
// of d values a row), printed seed.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "reference/weight_layout.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "engine/template_library.hpp"

namespace vktune {
namespace {

using kernels::Shape;

// Each split kernel and its GGUF-layout sibling.
const std::vector<std::pair<std::string, std::string>> kTwins{
    {"matmul_q6k_split", "matmul_q6k"},
    {"matmul_q6k_split_cache", "matmul_q6k_cache"},
    {"matmul_q6k_split_swiglu", "matmul_q6k_swiglu"},
    {"matmul_q6k_split_swiglu_resnorm", "matmul_q6k_swiglu_resnorm"},
    {"matmul_q6k_split_resnorm", "matmul_q6k_resnorm"}};

TEST(Q6kSplit, TheProblemIsTheGgufKernelsWithItsWeightsRearranged) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  for (const auto& [split_name, gguf_name] : kTwins) {
    SCOPED_TRACE(split_name);
    const auto& split = kernels::find_kernel(split_name);
    const auto& gguf = kernels::find_kernel(gguf_name);
    const auto shape = split.check_shapes().front();
    const auto a = split.make_problem(shape, seed);
    const auto b = gguf.make_problem(shape, seed);
    ASSERT_EQ(a.buffers.size(), b.buffers.size());
    ASSERT_EQ(a.expected.size(), b.expected.size());
    for (std::size_t i = 0; i < a.expected.size(); ++i) {  // NaN: an output the sampled reference leaves out
      if (std::isnan(b.expected[i])) EXPECT_TRUE(std::isnan(a.expected[i])) << i;
      else EXPECT_EQ(a.expected[i], b.expected[i]) << i;
    }
    for (std::size_t i = 0; i < a.buffers.size(); ++i) {
      if (a.buffers[i].name == "W") {
        EXPECT_EQ(a.buffers[i].bytes, ref::to_layout(ref::WeightLayout::q6_k_split, b.buffers[i].bytes));
        EXPECT_NE(a.buffers[i].bytes, b.buffers[i].bytes);
      } else {
        EXPECT_EQ(a.buffers[i].bytes, b.buffers[i].bytes) << a.buffers[i].name;
      }
    }
    EXPECT_EQ(split.spaces().front().bindings, gguf.spaces().front().bindings);
    // Decode shapes only, and SUPER_BLOCK=1 alone.
    Shape prefill = shape;
    prefill[0] = 9;
    try {
      split.validate_shape(prefill);
      ADD_FAILURE() << "M=9 accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("split layout"), std::string::npos) << e.what();
    }
    for (const auto& path : split.spaces().front().paths) EXPECT_EQ(path.pinned.at("SUPER_BLOCK"), 1) << path.name;
    const auto device = testing_support::h200_like();
    auto config = split.baseline(shape);
    EXPECT_TRUE(split.constraint_violation(config, shape, device).empty());
    EXPECT_EQ(testing_support::define_value(split.stages(config, shape).front(), "Q6K_SPLIT"), "1");
    config["SUPER_BLOCK"] = 0;
    config["X_QUANT"] = 0;
    // The epilogues' own rule (they too need SUPER_BLOCK=1) speaks first where there is one.
    const auto rule = std::string(split.constraint_violation(config, shape, device).rule);
    EXPECT_EQ(rule, split_name.ends_with("_cache")     ? "epilogue.pair_template"
                    : split_name.ends_with("_resnorm") ? "epilogue.slot_reduce"
                                                       : "quant_matmul.split_reader");
  }
}

TEST(Q6kSplitDevice, TheBaselinePassesOnTheSplitWeightsAndFailsOnGgufs) {
  vk::Instance instance;
  const auto templates = TemplateLibrary::embedded();
  SilentProgress progress;
  TuneSession session(instance, testing_support::test_device_index(), nullptr, templates, progress);
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  for (const auto& [split_name, gguf_name] : kTwins) {
    const auto& split = kernels::find_kernel(split_name);
    const testing_support::WrongReference gguf_order(split, [](kernels::Problem& p) {
      for (auto& b : p.buffers) {
        if (b.name == "W") b.bytes = ref::from_layout(ref::WeightLayout::q6_k_split, b.bytes);
      }
    });
    for (const auto& shape : split.check_shapes()) {
      SCOPED_TRACE(split_name + " " + kernels::shape_to_string(shape));
      const auto right = session.check(split, shape, {split.baseline(shape)}, seed);
      ASSERT_EQ(right.outcomes.size(), 1u);
      EXPECT_EQ(right.outcomes[0].status, results::Status::ok) << right.outcomes[0].reason;
      const auto wrong = session.check(gguf_order, shape, {split.baseline(shape)}, seed);
      ASSERT_EQ(wrong.outcomes.size(), 1u);
      EXPECT_EQ(wrong.outcomes[0].status, results::Status::wrong_result) << wrong.outcomes[0].reason;
    }
  }
}

}  // namespace
}  // namespace vktune
