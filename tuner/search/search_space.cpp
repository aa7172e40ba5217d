#include "tuner/search/search_space.hpp"

#include <algorithm>
#include <set>

#include "common/error.hpp"

namespace vktune {

SearchSpace::SearchSpace(const std::vector<kernels::Parameter>& parameters, std::vector<kernels::Config> legal)
    : configs_(std::move(legal)) {
  build(parameters);
}

SearchSpace::SearchSpace(std::vector<kernels::Config> legal) : configs_(std::move(legal)) { build({}); }

void SearchSpace::build(const std::vector<kernels::Parameter>& parameters) {
  std::map<std::string, std::set<int>> taken;
  for (const auto& c : configs_)
    for (const auto& [name, value] : c) taken[name].insert(value);
  for (const auto& c : configs_) {
    if (c.size() != taken.size()) {
      throw Error(ErrorKind::internal, "search space: config " + kernels::config_to_string(c) +
                                           " lacks parameters the others have");
    }
  }
  for (const auto& [name, set] : taken) {
    if (set.size() < 2) continue;
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
    names_.push_back(name);
    values_.push_back(std::move(ordered));
  }
  positions_.resize(configs_.size() * names_.size());
  for (std::size_t i = 0; i < configs_.size(); ++i) {
    for (std::size_t p = 0; p < names_.size(); ++p) {
      const auto& vs = values_[p];
      positions_[i * names_.size() + p] =
          static_cast<std::size_t>(std::find(vs.begin(), vs.end(), configs_[i].at(names_[p])) - vs.begin());
    }
  }
  // Every config has the same names and the same value of each name that
  // does not vary, so its positions identify it: the index is a sorted
  // list of their hashes, not a second copy of every config (a map of
  // configs held each again, names and all: about a kilobyte apiece for
  // attention_decode's 17 parameters).
  by_hash_.reserve(configs_.size());
  for (std::size_t i = 0; i < configs_.size(); ++i) by_hash_.emplace_back(hash_positions(&positions_[i * names_.size()]), i);
  std::sort(by_hash_.begin(), by_hash_.end());
  for (std::size_t k = 1; k < by_hash_.size(); ++k) {
    if (by_hash_[k].first == by_hash_[k - 1].first && same_positions(by_hash_[k].second, by_hash_[k - 1].second)) {
      throw Error(ErrorKind::internal, "search space: config " + kernels::config_to_string(configs_[by_hash_[k].second]) +
                                           " is listed twice");
    }
  }
}

std::uint64_t SearchSpace::hash_positions(const std::size_t* row) const {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the positions
  for (std::size_t p = 0; p < names_.size(); ++p) {
    h ^= static_cast<std::uint64_t>(row[p]);
    h *= 1099511628211ULL;
  }
  return h;
}

bool SearchSpace::same_positions(std::size_t a, std::size_t b) const {
  const auto n = names_.size();
  return std::equal(positions_.begin() + static_cast<long>(a * n), positions_.begin() + static_cast<long>((a + 1) * n),
                    positions_.begin() + static_cast<long>(b * n));
}

std::optional<std::size_t> SearchSpace::index_of(const kernels::Config& config) const {
  if (configs_.empty()) return std::nullopt;
  std::vector<std::size_t> row(names_.size());
  for (std::size_t p = 0; p < names_.size(); ++p) {
    const auto it = config.find(names_[p]);
    if (it == config.end()) return std::nullopt;
    const auto& vs = values_[p];
    const auto at = std::find(vs.begin(), vs.end(), it->second);
    if (at == vs.end()) return std::nullopt;
    row[p] = static_cast<std::size_t>(at - vs.begin());
  }
  const auto h = hash_positions(row.data());
  for (auto it = std::lower_bound(by_hash_.begin(), by_hash_.end(), std::pair<std::uint64_t, std::size_t>{h, 0});
       it != by_hash_.end() && it->first == h; ++it) {
    // Equal positions, and the names and fixed values equal too.
    if (configs_[it->second] == config) return it->second;
  }
  return std::nullopt;
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t index) const {
  std::vector<std::size_t> out;
  const auto& base = configs_.at(index);
  for (std::size_t p = 0; p < names_.size(); ++p) {
    const auto& vs = values_[p];
    const auto at = position(index, p);
    for (int direction : {-1, +1}) {
      auto probe = base;
      for (auto q = static_cast<long>(at) + direction; q >= 0 && q < static_cast<long>(vs.size()); q += direction) {
        probe[names_[p]] = vs[static_cast<std::size_t>(q)];
        if (auto found = index_of(probe)) {
          out.push_back(*found);
          break;
        }
      }
    }
  }
  return out;
}

std::size_t SearchSpace::random_index(std::mt19937_64& rng) const {
  if (configs_.empty()) throw Error(ErrorKind::internal, "search space: a random config of an empty space");
  return static_cast<std::size_t>(rng() % configs_.size());
}

double SearchSpace::feature(std::size_t index, std::size_t parameter) const {
  const auto n = values_[parameter].size();
  return static_cast<double>(position(index, parameter)) / static_cast<double>(n - 1);
}

}  // namespace vktune
