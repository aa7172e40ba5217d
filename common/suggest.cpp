#include "common/suggest.hpp"

#include <algorithm>
#include <cstddef>

namespace vktune {
namespace {

// Optimal string alignment distance: Levenshtein plus adjacent swaps.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const std::size_t allowed = word.size() <= 4 ? 1 : word.size() / 3;
  std::string best;
  std::size_t best_distance = allowed + 1;
  bool tie = false;
  for (const auto& candidate : candidates) {
    if (candidate == word) return candidate;
    const auto distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
      tie = false;
    } else if (distance == best_distance && candidate != best) {
      tie = true;
    }
  }
  return best_distance <= allowed && !tie ? best : std::string();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const auto name = closest_name(word, candidates);
  return name.empty() ? std::string() : " (did you mean '" + name + "'?)";
}

}  // namespace vktune
