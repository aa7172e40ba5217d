// ConfigList: configs kept as their values, read back as the configs they
// were, on fresh random configs (seed printed).
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <set>
#include <vector>

#include "common/error.hpp"
#include "tuner/search/config_list.hpp"

namespace vktune {
namespace {

std::vector<kernels::Config> random_configs(std::mt19937& rng, std::size_t count) {
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<kernels::Config> out;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back({{"WG_SIZE", value(rng)}, {"A", value(rng)}, {"UNROLL", value(rng)}, {"Z", value(rng)}});
  return out;
}

TEST(ConfigList, ReadsBackEveryConfigAsItWasAddedInOrder) {
  const auto seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 rng(seed);
  const auto configs = random_configs(rng, 1 + rng() % 500);
  ConfigList list;
  for (const auto& c : configs) list.push_back(c);
  ASSERT_EQ(list.size(), configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) EXPECT_EQ(list[i], configs[i]) << i;
  EXPECT_EQ(list.front(), configs.front());
  EXPECT_EQ(list.back(), configs.back());
  EXPECT_EQ(list.to_vector(), configs);
  const std::vector<kernels::Config> iterated(list.begin(), list.end());
  EXPECT_EQ(iterated, configs);
  EXPECT_EQ(static_cast<std::size_t>(list.end() - list.begin()), configs.size());
  // A config's values by name, without building it.
  for (std::size_t n = 0; n < list.names().size(); ++n) EXPECT_EQ(list.value(0, n), configs[0].at(list.names()[n]));
  EXPECT_EQ(ConfigList(configs), list);

  // Appended in two halves: the same list.
  const std::size_t half = configs.size() / 2;
  ConfigList first(std::vector<kernels::Config>(configs.begin(), configs.begin() + static_cast<long>(half)));
  first.append(ConfigList(std::vector<kernels::Config>(configs.begin() + static_cast<long>(half), configs.end())));
  EXPECT_EQ(first, list);
  ConfigList empty;
  empty.append(ConfigList(configs));
  EXPECT_EQ(empty, list);

  // Moved from, a list is empty.
  ConfigList moved(std::move(first));
  EXPECT_EQ(moved, list);
  EXPECT_TRUE(first.empty());  // NOLINT(bugprone-use-after-move): what a move leaves is the point
  EXPECT_EQ(first.begin(), first.end());
}

TEST(ConfigList, RefusesAConfigOverOtherNames) {
  ConfigList list;
  list.push_back({{"A", 1}, {"B", 2}});
  for (const kernels::Config& other : {kernels::Config{{"A", 1}}, kernels::Config{{"A", 1}, {"C", 2}},
                                       kernels::Config{{"A", 1}, {"B", 2}, {"C", 3}}}) {
    try {
      list.push_back(other);
      FAIL() << kernels::config_to_string(other);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::internal) << e.what();
    }
  }
  EXPECT_EQ(list.size(), 1u);
  EXPECT_THROW(static_cast<void>(list.at(1)), Error);
  list.clear();
  list.push_back({{"C", 7}});  // a cleared list takes any names again
  EXPECT_EQ(list[0], (kernels::Config{{"C", 7}}));
}

}  // namespace
}  // namespace vktune
