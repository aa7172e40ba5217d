// The built-in kernels' prefix checkers (kernels/early_rules.hpp) keep
// exactly the configs that checking config by config keeps, in the same
// order, and filter as many: on the H200-like device with its pruning rules
// active and on the AMD, Intel and Arm descriptions over the full space, at
// a default and a check shape of every space that has a checker.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "tests/kernels/config_by_config.hpp"
#include "tests/kernels/kernel_test_support.hpp"
#include "tests/kernels/test_devices.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

using kernels::Kernel;
using kernels::Shape;

// The shapes to compare at: per space, its first default and first check
// shape.
std::vector<Shape> shapes_of_each_space(const Kernel& k) {
  std::vector<Shape> shapes;
  for (std::size_t s = 0; s < k.spaces().size(); ++s) {
    for (const auto& list : {k.default_shapes(), k.check_shapes()}) {
      for (const auto& shape : list) {
        if (k.space_index(shape) != s) continue;
        shapes.push_back(shape);
        break;
      }
    }
  }
  return shapes;
}

bool has_prefix_checker(const Kernel& k, const Shape& shape, const vk::DeviceInfo& device) {
  const auto& space = k.spaces().at(k.space_index(shape));
  for (const auto& path : space.effective_paths()) {
    if (k.prefix_checker(path, shape, device, {}) != nullptr) return true;
  }
  return false;
}

TEST(EarlyRules, PrefixByPrefixKeepsWhatConfigByConfigKeeps) {
  std::vector<std::pair<vk::DeviceInfo, SpaceScope>> devices{{testing_support::h200_like(), SpaceScope::pruned}};
  for (const auto& d : testing_support::other_vendor_devices()) devices.emplace_back(d, SpaceScope::full);
  std::size_t compared = 0;
  for (const auto* k : kernels::all_kernels()) {
    const kernels::ConfigByConfig plain(*k);
    for (const auto& shape : shapes_of_each_space(*k)) {
      for (const auto& [device, scope] : devices) {
        if (!has_prefix_checker(*k, shape, device)) continue;
        const std::string where = k->name() + " " + kernels::shape_to_string(shape) + " on " + device.name + ", " +
                                  to_string(scope);
        const auto fast = enumerate_space(*k, shape, device, scope);
        const auto slow = enumerate_space(plain, shape, device, scope);
        EXPECT_EQ(fast.total, slow.total) << where;
        EXPECT_EQ(fast.filtered, slow.filtered) << where;
        ASSERT_EQ(fast.valid.size(), slow.valid.size()) << where;
        EXPECT_TRUE(fast.valid == slow.valid) << where << ": the same number kept, not the same configs";
        EXPECT_EQ(fast.path_of, slow.path_of) << where;
        ++compared;
      }
    }
  }
  // Not vacuous: the quantized products' decode spaces have checkers.
  EXPECT_GE(compared, 40u);
  std::cout << compared << " enumerations compared\n";
}

}  // namespace
}  // namespace vktune
