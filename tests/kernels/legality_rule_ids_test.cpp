// `vktune list --device` counts illegal configs by the id of the legality
// rule they break: for every registered kernel at its default shapes, on the
// test device and on the H200-like devices of the contract suite, every id is
// a dotted name ("workgroup.max_invocations", "matvec.pass_width"), never a
// word of a sentence or nothing, no pruning rule of the kernel has it as its
// name, and a kernel's configs fall under few ids.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

// The devices the ids are collected on: the test device (lavapipe in CI)
// and the contract suite's H200-like ones (their tensor-core paths).
const std::vector<vk::DeviceInfo>& devices() {
  static const std::vector<vk::DeviceInfo> list = [] {
    std::vector<vk::DeviceInfo> out{testing_support::h200_like(), testing_support::h200_like_tensor_cores()};
    const vk::Instance instance(vk::InstanceOptions{});
    const auto found = vk::list_devices(instance);
    const auto index = testing_support::test_device_index();
    if (index < found.size()) out.insert(out.begin(), found[index]);
    return out;
  }();
  return list;
}

class LegalityRuleIds : public ::testing::TestWithParam<std::string> {};

TEST_P(LegalityRuleIds, IllegalConfigsAreCountedUnderFewDottedRuleIds) {
  const auto& kernel = kernels::find_kernel(GetParam());
  // Words a free-text reason starts with; none of them names a rule.
  const std::set<std::string> words = {"",    "a",   "an",  "the", "is",   "of",    "to",   "in",
                                       "and", "or",  "not", "it",  "this", "with",  "for",  "at",
                                       "on",  "by",  "be",  "as",  "no",   "needs", "more", "stage"};
  const std::regex dotted("[a-z0-9_]+(\\.[a-z0-9_]+)+");
  std::set<std::string> pruning;
  for (const auto& space : kernel.spaces()) {
    for (const auto& rule : space.pruning) pruning.insert(rule.name);
  }
  std::set<std::string> ids;
  for (const auto& device : devices()) {
    for (const auto& shape : kernel.default_shapes()) {
      const auto space = enumerate_space(kernel, shape, device, SpaceScope::full);
      for (const auto& [id, count] : space.filter_reasons) {
        const auto where = GetParam() + " " + kernels::shape_to_string(shape) + " on " + device.name + ": '" + id +
                           "' (" + std::to_string(count) + " configs)";
        EXPECT_EQ(words.count(id), 0u) << where;
        EXPECT_TRUE(std::regex_match(id, dotted)) << where;
        EXPECT_EQ(pruning.count(id), 0u) << where << " is also a pruning rule's name";
        ids.insert(id);
      }
    }
  }
  // Few: a kernel's legality is a handful of rules, not one id per sentence.
  std::string all;
  for (const auto& id : ids) all += " " + id;
  EXPECT_LE(ids.size(), 24u) << GetParam() << ":" << all;
}

INSTANTIATE_TEST_SUITE_P(Registered, LegalityRuleIds, ::testing::ValuesIn(testing_support::kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vktune
