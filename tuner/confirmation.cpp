#include "tuner/confirmation.hpp"

#include <algorithm>

namespace vktune {

std::vector<std::size_t> confirmation_candidates(const std::vector<std::optional<double>>& search_ns,
                                                 const ConfirmRule& rule, std::optional<std::size_t> baseline) {
  std::vector<std::size_t> ranked;
  for (std::size_t i = 0; i < search_ns.size(); ++i)
    if (search_ns[i]) ranked.push_back(i);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return *search_ns[a] < *search_ns[b]; });
  std::vector<std::size_t> picked;
  for (std::size_t rank = 0; rank < ranked.size() && rank < rule.at_most; ++rank) {
    const bool close = *search_ns[ranked[rank]] <= *search_ns[ranked.front()] * (1 + rule.within);
    if (rank >= rule.at_least && !close) break;
    if (ranked[rank] != baseline) picked.push_back(ranked[rank]);
  }
  return picked;
}

std::vector<std::size_t> confirmation_order(const std::vector<std::size_t>& candidates,
                                            std::optional<std::size_t> baseline, int rounds) {
  std::vector<std::size_t> order;
  for (int round = 0; round < std::max(1, rounds); ++round) {
    for (const auto candidate : candidates) {
      if (baseline) order.push_back(*baseline);
      order.push_back(candidate);
    }
  }
  return order;
}

}  // namespace vktune
