// exhaustive and random: a fixed order over every legal config, fixed before
// the search starts. exhaustive keeps the enumeration order when the search
// runs to the end and takes a random order when a budget, time or target may
// cut it (a prefix of the enumeration order would vary only the last
// parameters); random always samples uniformly without repetition.
#include <random>

#include "tuner/search/strategy.hpp"

namespace vktune {
namespace {

class OrderedStrategy final : public TrackingStrategy {
 public:
  OrderedStrategy(const StrategyContext& context, bool shuffle) : TrackingStrategy(context) {
    order_.resize(space_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    if (shuffle) {
      // Fisher-Yates with our own index draws: std::shuffle's use of the
      // engine differs between standard libraries, and seeds must reproduce.
      std::mt19937_64 rng(context.seed);
      for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng() % i]);
    }
  }

  std::vector<std::size_t> propose(std::size_t count) override {
    std::vector<std::size_t> out;
    while (out.size() < count && next_ < order_.size()) {
      const auto index = order_[next_++];
      if (spend(index)) out.push_back(index);
    }
    return out;
  }

  std::vector<std::size_t> upcoming(std::size_t count) const override {
    std::vector<std::size_t> out;
    for (std::size_t i = next_; i < order_.size() && out.size() < count; ++i)
      if (!spent(order_[i])) out.push_back(order_[i]);
    return out;
  }

 private:
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
};

const bool exhaustive_registered = register_strategy(
    {"exhaustive", "every legal config: in enumeration order, or a random order when a budget or time may cut it",
     [](const StrategyContext& c) { return std::make_unique<OrderedStrategy>(c, c.bounded); }});

const bool random_registered = register_strategy(
    {"random", "a uniform random sample of the legal configs, without repetition",
     [](const StrategyContext& c) { return std::make_unique<OrderedStrategy>(c, true); }});

}  // namespace
}  // namespace vktune
