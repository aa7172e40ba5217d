// random: a uniform sample of the legal configs without repetition.
#include <random>

#include "tuner/search/strategy.hpp"

namespace vktune {
namespace {

class RandomStrategy final : public TrackingStrategy {
 public:
  explicit RandomStrategy(const StrategyContext& context) : TrackingStrategy(context), rng_(context.seed) {
    order_.resize(space_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    // Fisher-Yates with our own index draws: std::shuffle's use of the
    // engine differs between standard libraries, and seeds must reproduce.
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng_() % i]);
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
  std::mt19937_64 rng_;
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
};

const bool registered = register_strategy(
    {"random", "a uniform random sample of the legal configs, without repetition",
     [](const StrategyContext& c) { return std::make_unique<RandomStrategy>(c); }});

}  // namespace
}  // namespace vktune
