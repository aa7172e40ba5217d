// anneal: simulated annealing over ordered neighbours. The walk moves to a
// neighbour (one parameter one step along its ordered values) when it is
// faster, or slower by a margin the falling temperature still accepts; when
// the current config has no unspent neighbour left, it restarts from a
// random unspent config.
#include <cmath>
#include <random>

#include "tuner/search/strategy.hpp"

namespace vktune {
namespace {

class AnnealStrategy final : public TrackingStrategy {
 public:
  explicit AnnealStrategy(const StrategyContext& context) : TrackingStrategy(context), rng_(context.seed) {}

  std::vector<std::size_t> propose(std::size_t count) override {
    std::vector<std::size_t> out;
    if (current_) {
      auto around = space_.neighbours(*current_);
      for (std::size_t i = around.size(); i > 1; --i) std::swap(around[i - 1], around[rng_() % i]);
      for (auto index : around)
        if (out.size() < count && spend(index)) out.push_back(index);
    }
    // Fill the batch (or restart) with random unspent configs.
    while (out.size() < count && spent_count() < space_.size()) {
      const auto index = space_.random_index(rng_);
      if (spend(index)) out.push_back(index);
    }
    return out;
  }

  std::vector<std::size_t> upcoming(std::size_t count) const override {
    std::vector<std::size_t> out;
    if (current_)
      for (auto index : space_.neighbours(*current_))
        if (out.size() < count && !spent(index)) out.push_back(index);
    return out;
  }

 private:
  void on_result(const Observation& r) override {
    if (!r.time_ns) return;
    const double cost = std::log(*r.time_ns);
    // Temperature in log-time units: at first a config 10% slower is taken
    // with probability 1/e; it cools by 5% with every result.
    const double temperature = 0.1 * std::pow(0.95, static_cast<double>(results_.size()));
    const bool accept = !current_ || cost < current_cost_ ||
                        std::uniform_real_distribution<double>(0, 1)(rng_) <
                            std::exp(-(cost - current_cost_) / std::max(temperature, 1e-6));
    if (accept) {
      current_ = r.index;
      current_cost_ = cost;
    }
  }

  std::mt19937_64 rng_;
  std::optional<std::size_t> current_;
  double current_cost_ = 0;
};

const bool anneal_registered = register_strategy(
    {"anneal", "simulated annealing over neighbours (one parameter one step along its values)",
     [](const StrategyContext& c) { return std::make_unique<AnnealStrategy>(c); }});

}  // namespace
}  // namespace vktune
