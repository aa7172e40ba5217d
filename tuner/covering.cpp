#include "tuner/covering.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "common/error.hpp"

namespace vktune {
namespace {

// A valid config of one path at one of the shapes covered together.
struct CoveringCandidate {
  std::size_t shape;
  kernels::Config config;
};

// The covering of one path over its candidates at every shape: the indices
// of the candidates chosen, in the order chosen.
std::vector<std::size_t> cover_path(const std::vector<CoveringCandidate>& candidates, std::size_t shapes, bool pairs) {
  if (candidates.empty()) return {};
  // The parameters the path varies, and each candidate's value positions.
  std::map<std::string, std::set<int>> seen;
  for (const auto& c : candidates) {
    for (const auto& [name, value] : c.config) seen[name].insert(value);
  }
  std::vector<std::string> varied;
  std::vector<std::vector<int>> values;
  for (const auto& [name, set] : seen) {
    if (set.size() > 1) {
      varied.push_back(name);
      values.emplace_back(set.begin(), set.end());
    }
  }
  if (varied.empty()) {  // the path's configs never differ: its first at each shape
    std::vector<std::size_t> chosen;
    std::vector<char> has(shapes, 0);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      if (!has[candidates[c].shape]) {
        has[candidates[c].shape] = 1;
        chosen.push_back(c);
      }
    }
    return chosen;
  }
  const std::size_t p = varied.size();
  std::vector<std::vector<std::uint32_t>> positions(candidates.size(), std::vector<std::uint32_t>(p));
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    for (std::size_t i = 0; i < p; ++i) {
      const auto& v = values[i];
      positions[c][i] = static_cast<std::uint32_t>(
          std::lower_bound(v.begin(), v.end(), candidates[c].config.at(varied[i])) - v.begin());
    }
  }
  // What a candidate covers: each of its values at its shape, and (at
  // strength 2, for a path varying two parameters or more) each of its pairs
  // at any shape. Keys are dense: the values of every shape first, then the
  // pairs per parameter pair (i < j).
  pairs = pairs && p > 1;
  std::vector<std::size_t> value_offset;
  std::size_t value_keys = 0;
  for (std::size_t i = 0; i < p; ++i) {
    value_offset.push_back(value_keys);
    value_keys += values[i].size();
  }
  std::vector<std::size_t> pair_offset;
  std::size_t keys = shapes * value_keys;
  for (std::size_t i = 0; pairs && i < p; ++i) {
    for (std::size_t j = i + 1; j < p; ++j) {
      pair_offset.push_back(keys);
      keys += values[i].size() * values[j].size();
    }
  }
  auto elements = [&](std::size_t c, std::vector<std::size_t>& out) {
    out.clear();
    for (std::size_t i = 0; i < p; ++i) out.push_back(candidates[c].shape * value_keys + value_offset[i] + positions[c][i]);
    if (!pairs) return;
    std::size_t pair = 0;
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = i + 1; j < p; ++j, ++pair) {
        out.push_back(pair_offset[pair] + positions[c][i] * values[j].size() + positions[c][j]);
      }
    }
  };
  // Only what some candidate takes needs covering.
  std::vector<char> uncovered(keys, 0);
  std::vector<std::size_t> scratch;
  std::size_t remaining = 0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    elements(c, scratch);
    for (auto k : scratch) {
      if (!uncovered[k]) ++remaining;
      uncovered[k] = 1;
    }
  }
  std::vector<std::size_t> chosen;
  std::vector<char> taken(candidates.size(), 0);
  while (remaining > 0) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
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
    chosen.push_back(best);
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

std::vector<std::vector<kernels::Config>> covering_configs(const std::vector<const SpaceEnumeration*>& shapes,
                                                           std::optional<unsigned> strength) {
  std::vector<std::vector<kernels::Config>> chosen(shapes.size());
  if (shapes.empty()) return chosen;
  const auto& paths = shapes.front()->paths;
  for (const auto* s : shapes) {
    const bool same = s->paths.size() == paths.size() &&
                      std::equal(paths.begin(), paths.end(), s->paths.begin(),
                                 [](const auto& a, const auto& b) { return a.name == b.name; });
    if (s->space_name != shapes.front()->space_name || !same) {
      throw Error(ErrorKind::internal, "a covering across shapes of different spaces (" + s->space_name + ", " +
                                           shapes.front()->space_name + ")");
    }
  }
  for (std::size_t path = 0; path < paths.size(); ++path) {
    std::vector<CoveringCandidate> candidates;
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      for (std::size_t i = 0; i < shapes[s]->valid.size(); ++i) {
        if (shapes[s]->path_of[i] == path) candidates.push_back({s, shapes[s]->valid[i]});
      }
    }
    const bool pairs = strength.value_or(paths[path].covering_strength) >= 2;
    for (const auto c : cover_path(candidates, shapes.size(), pairs)) {
      chosen[candidates[c].shape].push_back(candidates[c].config);
    }
  }
  return chosen;
}

std::vector<kernels::Config> covering_configs(const SpaceEnumeration& space, std::optional<unsigned> strength) {
  return covering_configs(std::vector<const SpaceEnumeration*>{&space}, strength).front();
}

}  // namespace vktune
