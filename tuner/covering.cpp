#include "tuner/covering.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace vktune {
namespace {

// The covering for the configs of one path.
std::vector<kernels::Config> cover_path(const std::vector<const kernels::Config*>& configs, bool pairs) {
  if (configs.empty()) return {};
  // The parameters the path varies, and each config's value positions.
  std::map<std::string, std::set<int>> seen;
  for (const auto* c : configs) {
    for (const auto& [name, value] : *c) seen[name].insert(value);
  }
  std::vector<std::string> varied;
  std::vector<std::vector<int>> values;
  for (const auto& [name, set] : seen) {
    if (set.size() > 1) {
      varied.push_back(name);
      values.emplace_back(set.begin(), set.end());
    }
  }
  if (varied.empty()) return {*configs.front()};
  const std::size_t p = varied.size();
  std::vector<std::vector<std::uint32_t>> positions(configs.size(), std::vector<std::uint32_t>(p));
  for (std::size_t c = 0; c < configs.size(); ++c) {
    for (std::size_t i = 0; i < p; ++i) {
      const auto& v = values[i];
      positions[c][i] = static_cast<std::uint32_t>(
          std::lower_bound(v.begin(), v.end(), configs[c]->at(varied[i])) - v.begin());
    }
  }
  // What a config covers: its pairs (i < j), or its values (one for each
  // parameter) at strength 1 or when the path varies one parameter. Keys are
  // dense per parameter pair (per parameter).
  pairs = pairs && p > 1;
  std::vector<std::size_t> offset;  // per (i, j) pair of parameters, or per parameter
  std::size_t keys = 0;
  auto elements = [&](std::size_t c, std::vector<std::size_t>& out) {
    out.clear();
    if (!pairs) {
      for (std::size_t i = 0; i < p; ++i) out.push_back(offset[i] + positions[c][i]);
      return;
    }
    std::size_t pair = 0;
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = i + 1; j < p; ++j, ++pair) {
        out.push_back(offset[pair] + positions[c][i] * values[j].size() + positions[c][j]);
      }
    }
  };
  for (std::size_t i = 0; i < p; ++i) {
    if (!pairs) {
      offset.push_back(keys);
      keys += values[i].size();
      continue;
    }
    for (std::size_t j = i + 1; j < p; ++j) {
      offset.push_back(keys);
      keys += values[i].size() * values[j].size();
    }
  }
  // Only what some config takes needs covering.
  std::vector<char> uncovered(keys, 0);
  std::vector<std::size_t> scratch;
  std::size_t remaining = 0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    elements(c, scratch);
    for (auto k : scratch) {
      if (!uncovered[k]) ++remaining;
      uncovered[k] = 1;
    }
  }
  std::vector<kernels::Config> chosen;
  std::vector<char> taken(configs.size(), 0);
  while (remaining > 0) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t c = 0; c < configs.size(); ++c) {
      if (taken[c]) continue;
      elements(c, scratch);
      std::size_t gain = 0;
      for (auto k : scratch) gain += uncovered[k] ? 1 : 0;
      if (gain > best_gain) {
        best_gain = gain;
        best = c;
      }
    }
    taken[best] = 1;
    chosen.push_back(*configs[best]);
    elements(best, scratch);
    for (auto k : scratch) {
      if (uncovered[k]) {
        uncovered[k] = 0;
        --remaining;
      }
    }
  }
  return chosen;
}

}  // namespace

std::vector<kernels::Config> covering_configs(const SpaceEnumeration& space, std::optional<unsigned> strength) {
  std::vector<kernels::Config> all;
  for (std::size_t path = 0; path < space.paths.size(); ++path) {
    std::vector<const kernels::Config*> configs;
    for (std::size_t i = 0; i < space.valid.size(); ++i) {
      if (space.path_of[i] == path) configs.push_back(&space.valid[i]);
    }
    for (auto& c : cover_path(configs, strength.value_or(space.paths[path].covering_strength) >= 2)) all.push_back(std::move(c));
  }
  return all;
}

}  // namespace vktune
