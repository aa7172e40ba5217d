#include "tuner/search/search_space.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "common/error.hpp"

namespace vktune {

SearchSpace::SearchSpace(const std::vector<kernels::Parameter>& parameters, const ConfigList& legal) {
  const auto& names = legal.names();
  std::vector<std::set<int>> sets(names.size());
  for (std::size_t i = 0; i < legal.size(); ++i)
    for (std::size_t k = 0; k < names.size(); ++k) sets[k].insert(legal.value(i, k));
  std::vector<std::size_t> column;  // per varying parameter: its column in `legal`
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto& name = names[k];
    const auto& set = sets[k];
    all_names_.push_back(name);
    fixed_.push_back(*set.begin());
    varying_.push_back(-1);
    if (set.size() < 2) continue;
    if (set.size() > std::numeric_limits<std::uint16_t>::max()) {
      throw Error(ErrorKind::internal, "search space: parameter " + name + " takes over 65,535 values");
    }
    std::vector<int> ordered;
    const auto declared = std::find_if(parameters.begin(), parameters.end(),
                                       [&](const kernels::Parameter& p) { return p.name == name; });
    if (declared != parameters.end())
      for (int v : declared->values)
        if (set.count(v) && std::find(ordered.begin(), ordered.end(), v) == ordered.end()) ordered.push_back(v);
    std::vector<int> rest;
    for (int v : set)
      if (std::find(ordered.begin(), ordered.end(), v) == ordered.end()) rest.push_back(v);
    ordered.insert(ordered.end(), rest.begin(), rest.end());
    varying_.back() = static_cast<int>(names_.size());
    names_.push_back(name);
    values_.push_back(std::move(ordered));
    column.push_back(k);
  }
  count_ = legal.size();
  const auto n = names_.size();
  positions_.resize(count_ * n);
  for (std::size_t i = 0; i < count_; ++i) {
    for (std::size_t p = 0; p < n; ++p) {
      const auto& vs = values_[p];
      positions_[i * n + p] =
          static_cast<std::uint16_t>(std::find(vs.begin(), vs.end(), legal.value(i, column[p])) - vs.begin());
    }
  }
  // Every config has the same names and the same value of each name that
  // does not vary, so its positions identify it: the index is a sorted list
  // of their hashes.
  by_hash_.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) by_hash_.emplace_back(hash_positions(&positions_[i * n]), i);
  std::sort(by_hash_.begin(), by_hash_.end());
  for (std::size_t k = 1; k < by_hash_.size(); ++k) {
    const auto a = by_hash_[k].second, b = by_hash_[k - 1].second;
    if (by_hash_[k].first == by_hash_[k - 1].first &&
        std::equal(&positions_[a * n], &positions_[a * n] + n, &positions_[b * n])) {
      throw Error(ErrorKind::internal, "search space: config " + kernels::config_to_string(legal[a]) +
                                           " is listed twice");
    }
  }
}

std::uint64_t SearchSpace::hash_positions(const std::uint16_t* row) const {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the positions
  for (std::size_t p = 0; p < names_.size(); ++p) {
    h ^= row[p];
    h *= 1099511628211ULL;
  }
  return h;
}

std::optional<std::size_t> SearchSpace::find_row(const std::uint16_t* row) const {
  const auto n = names_.size();
  const auto h = hash_positions(row);
  for (auto it = std::lower_bound(by_hash_.begin(), by_hash_.end(), std::pair<std::uint64_t, std::size_t>{h, 0});
       it != by_hash_.end() && it->first == h; ++it) {
    if (std::equal(row, row + n, &positions_[it->second * n])) return it->second;
  }
  return std::nullopt;
}

kernels::Config SearchSpace::config(std::size_t index) const {
  if (index >= count_) throw Error(ErrorKind::internal, "search space: no config " + std::to_string(index));
  kernels::Config config;
  for (std::size_t k = 0; k < all_names_.size(); ++k) {
    const int p = varying_[k];
    const int value = p < 0 ? fixed_[k] : values_[static_cast<std::size_t>(p)][position(index, static_cast<std::size_t>(p))];
    config.emplace_hint(config.end(), all_names_[k], value);
  }
  return config;
}

std::optional<std::size_t> SearchSpace::index_of(const kernels::Config& config) const {
  if (count_ == 0 || config.size() != all_names_.size()) return std::nullopt;
  std::vector<std::uint16_t> row(names_.size());
  std::size_t k = 0;
  for (const auto& [name, value] : config) {  // in the order of all_names_
    if (name != all_names_[k]) return std::nullopt;
    const int p = varying_[k];
    if (p < 0) {
      if (value != fixed_[k]) return std::nullopt;
    } else {
      const auto& vs = values_[static_cast<std::size_t>(p)];
      const auto at = std::find(vs.begin(), vs.end(), value);
      if (at == vs.end()) return std::nullopt;
      row[static_cast<std::size_t>(p)] = static_cast<std::uint16_t>(at - vs.begin());
    }
    ++k;
  }
  return find_row(row.data());
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t index) const {
  std::vector<std::size_t> out;
  const auto n = names_.size();
  std::vector<std::uint16_t> probe(&positions_.at(index * n), &positions_.at(index * n) + n);
  for (std::size_t p = 0; p < n; ++p) {
    const auto at = probe[p];
    const auto levels = static_cast<long>(values_[p].size());
    for (int direction : {-1, +1}) {
      for (auto q = static_cast<long>(at) + direction; q >= 0 && q < levels; q += direction) {
        probe[p] = static_cast<std::uint16_t>(q);
        if (auto found = find_row(probe.data())) {
          out.push_back(*found);
          break;
        }
      }
    }
    probe[p] = at;
  }
  return out;
}

std::size_t SearchSpace::random_index(std::mt19937_64& rng) const {
  if (count_ == 0) throw Error(ErrorKind::internal, "search space: a random config of an empty space");
  return static_cast<std::size_t>(rng() % count_);
}

double SearchSpace::feature(std::size_t index, std::size_t parameter) const {
  const auto n = values_[parameter].size();
  return static_cast<double>(position(index, parameter)) / static_cast<double>(n - 1);
}

}  // namespace vktune
