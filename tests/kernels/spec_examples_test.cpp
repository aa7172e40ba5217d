// The example specs under examples/: they load, and examples/rmsnorm (the
// built-in rmsnorm re-expressed as a spec) has exactly the built-in's legal
// space on device descriptions and, on the test device, computes the same
// output bit for bit from the same input. (`vktune check` runs every example
// through the whole gate: tests/kernels/CMakeLists.txt.)
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

const kernels::spec::SpecKernel& rmsnorm_spec() {
  static const kernels::spec::SpecKernel kernel(kernels::spec::load_spec(VKTUNE_EXAMPLES_DIR "/rmsnorm/rmsnorm.json"));
  return kernel;
}

// The spec's config as the built-in names it: PATH 0 is REDUCTION=0 (the
// subgroup reduction), PATH 1 the shared-memory tree.
Config as_builtin(Config config) {
  config["REDUCTION"] = config.at("PATH");
  config.erase("PATH");
  return config;
}

std::set<Config> builtin_valid(const Shape& shape, const vk::DeviceInfo& device) {
  const auto space = enumerate_space(kernels::find_kernel("rmsnorm"), shape, device);
  return {space.valid.begin(), space.valid.end()};
}

std::set<Config> spec_valid(const Shape& shape, const vk::DeviceInfo& device) {
  std::set<Config> configs;
  for (const auto& c : enumerate_space(rmsnorm_spec(), shape, device).valid) configs.insert(as_builtin(c));
  return configs;
}

// Every spec under examples/, found there rather than listed here (a list
// missed the examples added after it).
TEST(SpecExamples, EveryExampleLoads) {
  std::size_t specs = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(VKTUNE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++specs;
    EXPECT_NO_THROW(kernels::spec::SpecKernel(kernels::spec::load_spec(entry.path().string()))) << entry.path();
  }
  EXPECT_GE(specs, 19u);  // as of session 36
}

TEST(SpecExamples, RmsnormSpecHasTheBuiltinsLegalSpace) {
  auto narrow = testing_support::h200_like();
  narrow.min_subgroup_size = 8, narrow.max_subgroup_size = 64;  // a device that lets SUBGROUP_SIZE vary
  narrow.subgroup_size = 32;
  for (const auto& device : {testing_support::h200_like(), narrow}) {
    auto shapes = rmsnorm_spec().default_shapes();
    for (const auto& s : rmsnorm_spec().check_shapes()) shapes.push_back(s);
    shapes.push_back({7, 4097});  // a third row length, off every step
    {
      for (const auto& shape : shapes) {
        const auto expected = builtin_valid(shape, device);
        EXPECT_FALSE(expected.empty());
        EXPECT_EQ(spec_valid(shape, device), expected) << kernels::shape_to_string(shape);
      }
    }
  }
}

class RmsnormSpecDevice : public testing_support::ValidatedDeviceSuite<int> {};

TEST_F(RmsnormSpecDevice, ComputesTheBuiltinsOutputBitForBit) {
  const auto& builtin = kernels::find_kernel("rmsnorm");
  const auto templates = TemplateLibrary::embedded();
  for (const Shape& shape : {Shape{1, 37}, Shape{3, 1000}}) {
    const auto problem = builtin.make_problem(shape, 77);
    DeviceProblem on_device(*device_, problem, 1);
    const auto valid = enumerate_space(rmsnorm_spec(), shape, device_->info()).valid;
    ASSERT_FALSE(valid.empty());
    // The first and last legal config of each path.
    std::vector<Config> configs{valid.front(), valid.back()};
    for (const auto& c : valid) {
      if (c.at("PATH") != valid.front().at("PATH")) {
        configs.push_back(c);
        break;
      }
    }
    for (const auto& config : configs) {
      std::vector<float> outputs[2];
      const kernels::Kernel* kernels[2] = {&rmsnorm_spec(), &builtin};
      const Config configs_of[2] = {config, as_builtin(config)};
      for (int k = 0; k < 2; ++k) {
        auto variant = describe_variant(*kernels[k], configs_of[k], shape, templates);
        compile_variant(variant, templates);
        VariantRunner runner(*device_, variant, 2, 2, 2);
        const auto v = runner.validate(on_device, problem, builtin.tolerance(shape), vk::kDefaultTimeout, &outputs[k]);
        EXPECT_TRUE(v.passed) << kernels::config_to_string(configs_of[k]) << ": " << v.reason;
      }
      EXPECT_EQ(outputs[0], outputs[1]) << kernels::config_to_string(config);
    }
  }
}

}  // namespace
}  // namespace vktune
