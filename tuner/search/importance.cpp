#include "tuner/search/importance.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace vktune {

std::vector<ParameterImportance> parameter_importance(const std::vector<std::pair<kernels::Config, double>>& timed) {
  std::vector<ParameterImportance> out;
  if (timed.size() < 2) return out;
  std::vector<double> log_time;
  double mean = 0;
  for (const auto& [config, ns] : timed) {
    log_time.push_back(std::log(ns));
    mean += log_time.back();
  }
  mean /= static_cast<double>(timed.size());
  double total = 0;
  for (double y : log_time) total += (y - mean) * (y - mean);
  const auto fastest = std::min_element(timed.begin(), timed.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  std::set<std::string> names;
  for (const auto& [config, ns] : timed)
    for (const auto& [name, value] : config) names.insert(name);
  for (const auto& name : names) {
    std::map<int, std::pair<double, std::size_t>> groups;  // value -> (sum, count)
    for (std::size_t i = 0; i < timed.size(); ++i) {
      const auto it = timed[i].first.find(name);
      if (it == timed[i].first.end()) continue;
      auto& g = groups[it->second];
      g.first += log_time[i];
      ++g.second;
    }
    if (groups.size() < 2) continue;
    double between = 0;
    for (const auto& [value, g] : groups) {
      const double group_mean = g.first / static_cast<double>(g.second);
      between += static_cast<double>(g.second) * (group_mean - mean) * (group_mean - mean);
    }
    const auto best = fastest->first.find(name);
    out.push_back({name, total > 0 ? between / total : 0.0, best == fastest->first.end() ? 0 : best->second});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.share > b.share; });
  return out;
}

}  // namespace vktune
