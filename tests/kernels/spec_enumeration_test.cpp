// A spec's space enumerated prefix by prefix (kernels/prefix_checker.hpp,
// kernels/spec/spec_prefix_checker.cpp) keeps exactly the configs that
// checking config by config keeps, in the same order, on random specs: random
// parameters and values, legality and pruning rules over parameters, shape
// and device (some not a number for some values), stages whose limits depend
// on parameters, one or several sub-spaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "tests/kernels/config_by_config.hpp"
#include "tuner/space.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;

vk::DeviceInfo device() {
  vk::DeviceInfo d;
  d.name = "test GPU";
  d.vendor_id = 0x10de;
  d.subgroup_size = 32;
  d.min_subgroup_size = 16;
  d.max_subgroup_size = 64;
  d.compute_required_subgroup_size = true;
  d.max_workgroup_size = {1024, 1024, 64};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {65535, 65535, 65535};
  d.max_shared_memory_bytes = 49152;
  d.max_push_constants_bytes = 128;
  return d;
}

// A random rule over some of `names`, the shape (rows, n) and, for
// legality, device facts (pruning rules are keyed to devices instead).
std::string random_rule(std::mt19937& rng, const std::vector<std::string>& names, bool legality) {
  auto pick = [&] { return names[std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(rng)]; };
  switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
    case 0:
      return pick() + " * " + pick() + " <= n / 4";
    case 1:
      return "mod(" + pick() + ", " + pick() + ") == 0";
    case 2:
      return pick() + " + " + pick() + (legality ? " < max_invocations / 16" : " < 64");
    case 3:
      return "is_pow2(" + pick() + ")";
    case 4:
      return "sqrt(" + pick() + " - 9) < 4";  // not a number below 9
    case 5:
      return pick() + " * rows <= 8 * " + pick();
    default:
      return pick() + " > 20 || " + pick() + " < 6";
  }
}

json random_spec(std::mt19937& rng) {
  const int subspaces = std::uniform_int_distribution<int>(1, 3)(rng);
  json subs = json::array();
  for (int s = 0; s < subspaces; ++s) {
    const int count = std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<std::string> names;
    json parameters = json::array();
    for (int p = 0; p < count; ++p) {
      names.push_back("S" + std::to_string(s) + "P" + std::to_string(p));
      // Distinct values from 1..40, in random order.
      std::vector<int> values(40);
      for (int v = 0; v < 40; ++v) values[v] = v + 1;
      std::shuffle(values.begin(), values.end(), rng);
      values.resize(std::uniform_int_distribution<std::size_t>(1, 6)(rng));
      parameters.push_back({{"name", names.back()}, {"values", values}});
    }
    json legality = json::array(), pruning = json::array();
    for (int r = std::uniform_int_distribution<int>(0, 3)(rng); r > 0; --r) {
      legality.push_back({{"rule", random_rule(rng, names, true)}, {"reason", "rule " + std::to_string(r)}});
    }
    for (int r = std::uniform_int_distribution<int>(0, 2)(rng); r > 0; --r) {
      pruning.push_back(
          {{"name", "p" + std::to_string(r)}, {"rule", random_rule(rng, names, false)}, {"reason", "why"}});
    }
    const auto& first = names.front();
    const auto& last = names.back();
    json stages = json::array();
    stages.push_back({{"workgroups", json::array({{{"dim", "rows"}, {"per_workgroup", "1"}}, 1, 1})},
                      {"shared_memory_bytes", "4096 * " + last}});
    if (std::bernoulli_distribution(0.5)(rng)) {
      stages.push_back({{"local_size", json::array({"8 * " + first, 1, 1})},
                        {"workgroups", json::array({{{"dim", "n"}, {"per_workgroup", last}}, 1, 1})},
                        {"subgroup_size", "mod(" + first + ", 3) == 0 ? 16 : 0"}});
    }
    subs.push_back({{"name", "sub" + std::to_string(s)},
                    {"template", "k.comp"},
                    {"parameters", parameters},
                    {"local_size", json::array({"16 * " + first, 1, 1})},
                    {"legality", legality},
                    {"pruning", pruning},
                    {"stages", stages}});
  }
  return {{"name", "random_space"},
          {"shape", {"rows", "n"}},
          {"default_shapes", {{4, 256}}},
          {"subspaces", subs},
          {"buffers",
           json::array({{{"name", "x"}, {"binding", 0}, {"type", "f32"}, {"size", "rows * n"}, {"role", "input"}},
                        {{"name", "y"}, {"binding", 1}, {"type", "f32"}, {"size", "rows * n"}, {"role", "output"}}})},
          {"metrics", {{"bytes", "8 * rows * n"}, {"flops", "rows * n"}}},
          {"reference", {{"op", "softmax"}, {"x", "x"}, {"y", "y"}, {"n", "n"}}}};
}

const FileReader kReader = [](const std::string&) -> std::optional<std::string> {
  return std::string("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n");
};

TEST(SpecEnumeration, PrefixByPrefixKeepsWhatConfigByConfigKeeps) {
  const auto seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::size_t kept = 0, dropped = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const auto spec = random_spec(rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", trial " + std::to_string(trial) + ": " + spec.dump());
    const SpecKernel kernel(parse_spec(spec.dump(), "random.json", kReader));
    const ConfigByConfig plain(kernel);
    for (const Shape& shape : {Shape{4, 256}, Shape{37, 96}}) {
      for (const auto scope : {SpaceScope::pruned, SpaceScope::full}) {
        const auto fast = enumerate_space(kernel, shape, device(), scope);
        const auto slow = enumerate_space(plain, shape, device(), scope);
        ASSERT_EQ(fast.total, slow.total);
        ASSERT_EQ(fast.filtered, slow.filtered);
        ASSERT_EQ(fast.valid, slow.valid);
        ASSERT_EQ(fast.path_of, slow.path_of);
        // Which rule a config is counted under may differ (a shallower
        // rule decides first), never whether it is kept; every dropped
        // config is counted under one rule or reason.
        std::size_t counted = 0;
        for (const auto& [rule, n] : fast.pruned_by) counted += n;
        for (const auto& [why, n] : fast.filter_reasons) counted += n;
        EXPECT_EQ(counted, fast.filtered);
        kept += fast.valid.size();
        dropped += fast.filtered;
      }
    }
  }
  // The random specs exercised both outcomes.
  EXPECT_GT(kept, 0u);
  EXPECT_GT(dropped, 0u);
}

// A space far larger than stretches of it, where whole prefixes fail early:
// still the same configs, and the counts add up to the cartesian size.
TEST(SpecEnumeration, SkippedPrefixesAreCountedAsFiltered) {
  json spec = random_spec(*std::make_unique<std::mt19937>(1));
  json parameters = json::array();
  for (const char* name : {"A", "B", "C", "D"})
    parameters.push_back({{"name", name}, {"values", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}});
  spec["subspaces"] =
      json::array({{{"name", "only"},
                    {"template", "k.comp"},
                    {"parameters", parameters},
                    {"local_size", json::array({"32 * A", 1, 1})},
                    {"legality", json::array({{{"rule", "A <= 4"}, {"reason", "A"}},
                                              {{"rule", "B * C <= 40"}, {"reason", "BC"}},
                                              {{"rule", "mod(D, 3) == 0"}, {"reason", "D"}}})},
                    {"pruning", json::array({{{"name", "big"}, {"rule", "B > 10"}, {"reason", "why"}}})},
                    {"stages", json::array({{{"workgroups", json::array({"rows", 1, 1})}}})}}});
  const SpecKernel kernel(parse_spec(spec.dump(), "big.json", kReader));
  const ConfigByConfig plain(kernel);
  const auto fast = enumerate_space(kernel, {4, 256}, device());
  const auto slow = enumerate_space(plain, {4, 256}, device());
  EXPECT_EQ(fast.valid, slow.valid);
  EXPECT_EQ(fast.total, 12u * 12 * 12 * 12);
  EXPECT_EQ(fast.valid.size() + fast.filtered, fast.total);
  // Counted independently: A in 1..4, B in 1..10, B*C <= 40, D in {3, 6, 9, 12}.
  std::size_t expected = 0;
  for (int b = 1; b <= 10; ++b)
    for (int c = 1; c <= 12; ++c) expected += b * c <= 40 ? 4 * 4 : 0;
  EXPECT_EQ(fast.valid.size(), expected);
  // A prefix decides at its depth: configs with A > 4 are illegal before B
  // is looked at, so "big" prunes only those with A <= 4 and B > 10.
  EXPECT_EQ(fast.pruned_by.at("only.big"), 4u * 2 * 12 * 12);
}

// 64 binary parameters made a cartesian size of 2^64, which wrapped to 0:
// `list` said "0 valid of 0" and a tune ended after its baseline. A path
// above kMaxPathConfigs (2^20 = 1,048,576 is the first power of two above
// it) is refused before anything is allocated, naming the path.
TEST(SpecEnumeration, APathAboveTheCapIsAUsageErrorNotAWrappedCount) {
  for (const int binary : {64, 20}) {
    json spec = random_spec(*std::make_unique<std::mt19937>(1));
    json parameters = json::array();
    for (int i = 0; i < binary; ++i) parameters.push_back({{"name", "P" + std::to_string(i)}, {"values", {0, 1}}});
    spec["subspaces"] = json::array({{{"name", "wide"},
                                      {"template", "k.comp"},
                                      {"parameters", parameters},
                                      {"local_size", json::array({32, 1, 1})},
                                      {"stages", json::array({{{"workgroups", json::array({"rows", 1, 1})}}})}}});
    const SpecKernel kernel(parse_spec(spec.dump(), "wide.json", kReader));
    try {
      enumerate_space(kernel, {4, 256}, device());
      ADD_FAILURE() << binary << " binary parameters enumerated";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()).rfind(kernel.name() + ": the " + kernel.spaces()[0].name + " space has more", 0),
                0u)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("more than 1000000 configs"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vktune::kernels::spec
