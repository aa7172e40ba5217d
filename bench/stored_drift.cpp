#include "bench/stored_drift.hpp"

#include <cmath>
#include <cstdio>

namespace vktune::bench {

std::vector<std::string> drift_failures(const std::vector<WinnerTime>& winners, double max_drift) {
  std::vector<std::string> lines;
  for (const auto& w : winners) {
    if (w.measured_ns <= 0) {
      lines.push_back(w.name + ": stored " + std::to_string(w.stored_ns * 1e-3) + " us, not measured: " +
                      (w.why_not.empty() ? std::string("no time") : w.why_not));
      continue;
    }
    // Off by the larger of the two ratios, so that 2x slower and 2x faster
    // are the same distance from the stored time.
    const double ratio = w.measured_ns / w.stored_ns;
    const double off = std::max(ratio, 1.0 / ratio) - 1.0;
    if (off <= max_drift) continue;
    char text[160];
    std::snprintf(text, sizeof text, ": stored %.2f us, measured %.2f us (%+.1f%%)", w.stored_ns * 1e-3,
                  w.measured_ns * 1e-3, (ratio - 1.0) * 100.0);
    lines.push_back(w.name + text);
  }
  return lines;
}

}  // namespace vktune::bench
