#include "tuner/search/strategy.hpp"

#include <algorithm>
#include <map>

#include "common/error.hpp"

namespace vktune {

namespace {
// The one piece of global mutable state besides the kernel registry; filled
// by static initialisers before main runs.
std::map<std::string, StrategyInfo>& registry() {
  static std::map<std::string, StrategyInfo> strategies;
  return strategies;
}
}  // namespace

void TrackingStrategy::observe(const std::vector<Observation>& results) {
  for (const auto& r : results) {
    if (r.index >= space_.size()) {
      throw Error(ErrorKind::internal, "strategy observed index " + std::to_string(r.index) + " of a space of " +
                                           std::to_string(space_.size()));
    }
    spend(r.index);
    results_.push_back(r);
    if (r.time_ns && (!best_ || *r.time_ns < *best_->time_ns)) best_ = r;
    on_result(r);
  }
}

bool TrackingStrategy::spend(std::size_t index) {
  if (spent_.at(index)) return false;
  spent_[index] = true;
  ++spent_count_;
  return true;
}

bool register_strategy(StrategyInfo info) {
  auto name = info.name;
  if (!registry().emplace(name, std::move(info)).second) {
    throw Error(ErrorKind::internal, "two strategies are named " + name);
  }
  return true;
}

std::vector<const StrategyInfo*> registered_strategies() {
  std::vector<const StrategyInfo*> out;
  for (const auto& [name, info] : registry()) out.push_back(&info);
  return out;
}

std::string strategy_names() {
  std::string names;
  for (const auto& [name, info] : registry()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

const StrategyInfo& find_strategy(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    throw Error(ErrorKind::usage, "unknown strategy '" + name + "'; use one of " + strategy_names());
  }
  return it->second;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyContext& context) {
  return find_strategy(name).make(context);
}

}  // namespace vktune
