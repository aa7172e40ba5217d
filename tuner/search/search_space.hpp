#pragma once
// The legal configs of one kernel space at one shape on one device, as the
// strategies see them: an index per config, the ordered values of each
// parameter (so "one step up" means something), neighbours along those
// values, and a numeric encoding for surrogate models. Legality is decided
// once, when the space is built; strategies only ever pick indices.
//
// Stored compactly (issue 40, item 6): each config as the positions of its
// varying values (two bytes each), the values that do not vary and the names
// once for all; config() builds a config when asked. 200,000 configs of
// attention_decode's 17 names took 5 MiB so, 262 MiB as maps
// (ci/logs/2026-11-29-search-space-index-memory.txt). It is built from the
// enumeration's ConfigList, never from maps.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.hpp"
#include "tuner/search/config_list.hpp"

namespace vktune {

class SearchSpace {
 public:
  // `legal` must hold distinct configs over the same parameter names. Each
  // parameter's ordered values are those of `parameters` (the kernel's
  // declared order) that some legal config takes, followed by any value not
  // declared there, sorted numerically (a replay may hold configs of an older
  // parameter list).
  SearchSpace(const std::vector<kernels::Parameter>& parameters, const ConfigList& legal);
  SearchSpace(const std::vector<kernels::Parameter>& parameters, const std::vector<kernels::Config>& legal)
      : SearchSpace(parameters, ConfigList(legal)) {}
  // From the configs alone: each parameter's values sorted numerically.
  explicit SearchSpace(const ConfigList& legal) : SearchSpace({}, legal) {}
  explicit SearchSpace(const std::vector<kernels::Config>& legal) : SearchSpace({}, ConfigList(legal)) {}

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  kernels::Config config(std::size_t index) const;
  std::optional<std::size_t> index_of(const kernels::Config& config) const;

  // Parameters that take more than one value among the legal configs; the
  // others carry no information for a search.
  const std::vector<std::string>& parameter_names() const { return names_; }
  const std::vector<int>& values(std::size_t parameter) const { return values_.at(parameter); }
  // Position of config `index`'s value in values(parameter).
  std::size_t position(std::size_t index, std::size_t parameter) const {
    return positions_[index * names_.size() + parameter];
  }

  // Legal configs that differ from `index` in one parameter, each the
  // nearest legal one below and above along that parameter's ordered values.
  std::vector<std::size_t> neighbours(std::size_t index) const;
  // One legal config, uniformly.
  std::size_t random_index(std::mt19937_64& rng) const;

  // Numeric encoding: per parameter, the value's position scaled to [0, 1].
  std::size_t feature_count() const { return names_.size(); }
  double feature(std::size_t index, std::size_t parameter) const;

 private:
  std::uint64_t hash_positions(const std::uint16_t* row) const;  // names_.size() positions
  // The config whose varying positions are `row`, if any.
  std::optional<std::size_t> find_row(const std::uint16_t* row) const;

  std::size_t count_ = 0;
  std::vector<std::string> all_names_;  // every parameter, in a config's order
  std::vector<int> fixed_;              // per all_names_: the value where it does not vary
  std::vector<int> varying_;            // per all_names_: its index in names_, or -1
  std::vector<std::string> names_;
  std::vector<std::vector<int>> values_;
  std::vector<std::uint16_t> positions_;  // count_ × names_
  std::vector<std::pair<std::uint64_t, std::size_t>> by_hash_;  // (hash of its positions, index), sorted
};

}  // namespace vktune
