#pragma once
// Search strategies: given a SearchSpace, they propose small batches of
// config indices and observe every result (a time, or a failure) before they
// propose again. A strategy is one file under tuner/search/strategies/ that
// registers itself; `--strategy`'s help and validation come from the registry.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/records.hpp"
#include "tuner/search/search_space.hpp"

namespace vktune {

struct Observation {
  std::size_t index = 0;
  std::optional<double> time_ns;  // empty: the variant failed (compile, limits, wrong result, ...)
  // How it failed, when it did (ok with no time: evaluated but not timed).
  results::Status status = results::Status::ok;
  // What producing the result cost: compile, pipeline, validation, warm-up
  // and timing seconds (results::PhaseDurations); 0 when unknown (resumed
  // from the store, or stored without durations).
  double seconds = 0;
};

struct StrategyContext {
  const SearchSpace& space;
  std::uint64_t seed = 1;
  // True when a budget, time, target or convergence rule may end the search
  // before the space is exhausted (exhaustive then takes a random order).
  bool bounded = false;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Up to `count` indices, none proposed or observed before; fewer or none
  // when the strategy has nothing left to offer.
  virtual std::vector<std::size_t> propose(std::size_t count) = 0;
  // Results of proposed indices, or of indices the loop evaluated on its own
  // (the baseline, transfer seeds), which must then never be proposed.
  virtual void observe(const std::vector<Observation>& results) = 0;
  // Unspent indices the strategy expects to propose next, best guess first,
  // so that the loop can compile them ahead. Only a hint: nothing is spent.
  virtual std::vector<std::size_t> upcoming(std::size_t count) const {
    (void)count;
    return {};
  }
};

// What most strategies share: which indices are spent (proposed or
// observed) and the results seen so far.
class TrackingStrategy : public Strategy {
 public:
  explicit TrackingStrategy(const StrategyContext& context)
      : space_(context.space), spent_(context.space.size(), false) {}
  void observe(const std::vector<Observation>& results) override;

 protected:
  // Marks `index` spent; false when it already was.
  bool spend(std::size_t index);
  bool spent(std::size_t index) const { return spent_.at(index); }
  std::size_t spent_count() const { return spent_count_; }
  // Called for each new result after it is recorded.
  virtual void on_result(const Observation& result) { (void)result; }

  const SearchSpace& space_;
  std::vector<Observation> results_;  // in the order observed
  std::optional<Observation> best_;

 private:
  std::vector<bool> spent_;
  std::size_t spent_count_ = 0;
};

// The user-facing name of the Gaussian-process surrogate strategy
// (strategies/surrogate.cpp), the default of a bounded search.
inline constexpr const char* kSurrogateStrategy = "model";

struct StrategyInfo {
  std::string name;
  std::string help;  // one line
  std::function<std::unique_ptr<Strategy>(const StrategyContext&)> make;
};

// Called from a static initialiser in each strategy's file; returns true.
bool register_strategy(StrategyInfo info);
// Every registered strategy, by name.
std::vector<const StrategyInfo*> registered_strategies();
// "anneal, exhaustive, model, random"
std::string strategy_names();
// Throws Error(usage) naming the registered strategies for an unknown name.
const StrategyInfo& find_strategy(const std::string& name);
std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyContext& context);

}  // namespace vktune
