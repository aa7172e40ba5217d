#include "tuner/strategy.hpp"

#include <algorithm>
#include <random>

#include "common/error.hpp"

namespace vktune {

namespace {
class ListStrategy : public Strategy {
 public:
  explicit ListStrategy(std::vector<kernels::Config> order) : order_(std::move(order)) {}
  std::optional<kernels::Config> next() override {
    if (position_ >= order_.size()) return std::nullopt;
    return order_[position_++];
  }

 private:
  std::vector<kernels::Config> order_;
  std::size_t position_ = 0;
};
}  // namespace

std::unique_ptr<Strategy> make_exhaustive(std::vector<kernels::Config> candidates) {
  return std::make_unique<ListStrategy>(std::move(candidates));
}

std::unique_ptr<Strategy> make_random(std::vector<kernels::Config> candidates, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Fisher-Yates with our own index draws: std::shuffle's use of the engine
  // differs between standard libraries, and seeds must reproduce anywhere.
  for (std::size_t i = candidates.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(candidates[i - 1], candidates[j]);
  }
  return std::make_unique<ListStrategy>(std::move(candidates));
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, std::vector<kernels::Config> candidates,
                                        std::uint64_t seed) {
  if (name == "exhaustive") return make_exhaustive(std::move(candidates));
  if (name == "random") return make_random(std::move(candidates), seed);
  throw Error(ErrorKind::usage, "unknown strategy '" + name + "'; use exhaustive or random");
}

}  // namespace vktune
