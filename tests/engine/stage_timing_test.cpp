// A variant's launch timed stage by stage (VariantRunner::time_stages): on
// the test device, attention_decode's streaming path with its merge in a
// second dispatch (STREAM=1, MERGE_STAGE=1) validated on fresh inputs
// (printed seed), then timed: one time per stage, named by its template,
// each positive, and each sample's stages sum to its launch, so the medians
// of the stages sum to about the launch's median; a one-stage variant is one
// phase, the launch.
#include <gtest/gtest.h>

#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "tests/test_device.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace stage_timing_test {  // beside stale_config_test.cpp's attention() in one unity build
namespace {

const kernels::Kernel& attention() { return kernels::find_kernel("attention_decode"); }

// The first legal config of the space at `shape` with MERGE_STAGE as given.
kernels::Config first_config(const vk::DeviceInfo& device, const kernels::Shape& shape, int merge_stage) {
  const auto space = enumerate_space(attention(), shape, device, SpaceScope::full);
  for (const auto& config : space.valid) {
    if (config.at("STREAM") == 1 && config.at("MERGE_STAGE") == merge_stage) return config;
  }
  return {};
}

TEST(StageTiming, EachStageOfALaunchGetsItsTime) {
  vk::Instance instance;
  vk::Device device(instance, test::test_device_index());
  const kernels::Shape shape{8, 2, 128, 150};
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const auto problem = attention().make_problem(shape, seed);
  DeviceProblem on_device(device, problem, 1);
  const auto templates = TemplateLibrary::embedded();
  for (const int merge_stage : {1, 0}) {
    SCOPED_TRACE("MERGE_STAGE=" + std::to_string(merge_stage));
    const auto config = first_config(device.info(), shape, merge_stage);
    ASSERT_FALSE(config.empty()) << "no legal streaming config on the test device";
    auto variant = describe_variant(attention(), config, shape, templates);
    compile_variant(variant, templates);
    const std::size_t stages = merge_stage == 1 ? 2 : 1;
    ASSERT_EQ(variant.stages.size(), stages);
    VariantRunner runner(device, variant, static_cast<std::uint32_t>(problem.buffers.size()),
                         static_cast<std::uint32_t>(attention().shape_dims().size()), 4);
    const auto v = runner.validate(on_device, problem, attention().variant_tolerance(config, shape));
    ASSERT_TRUE(v.passed) << v.reason;
    const auto timing = runner.time_stages(on_device, shape, 7);
    std::vector<std::string> expected{"attention_decode_stream.comp"};
    if (stages == 2) expected.push_back("attention_merge.comp");
    EXPECT_EQ(timing.templates, expected);
    ASSERT_EQ(timing.median_ns.size(), stages);
    for (const double ns : timing.median_ns) EXPECT_GT(ns, 0);
    EXPECT_GT(timing.launch_ns.median, 0);
    const double sum = std::accumulate(timing.median_ns.begin(), timing.median_ns.end(), 0.0);
    // Medians of parts need not sum to the median of wholes; on a loaded
    // CPU device, within half of it.
    EXPECT_NEAR(sum, timing.launch_ns.median, 0.5 * timing.launch_ns.median);
    if (stages == 1) {
      EXPECT_DOUBLE_EQ(timing.median_ns[0], timing.launch_ns.median);
    }
  }
}

}  // namespace
}  // namespace stage_timing_test
}  // namespace vktune
