#include "harness/timing_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"

namespace vktune::vk {

std::uint64_t timestamp_delta(std::uint64_t begin, std::uint64_t end, std::uint32_t valid_bits) {
  if (valid_bits == 0 || valid_bits > 64) {
    throw Error(ErrorKind::internal, "timestampValidBits must be 1..64, got " + std::to_string(valid_bits));
  }
  const std::uint64_t mask = valid_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid_bits) - 1;
  // Unsigned subtraction wraps modulo 2^64; masking makes it modulo 2^bits.
  return ((end & mask) - (begin & mask)) & mask;
}

double ticks_to_ns(std::uint64_t ticks, double period_ns) { return static_cast<double>(ticks) * period_ns; }

namespace {
// Quantile q in [0,1] of sorted values, linear interpolation.
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}
}  // namespace

TimingStats compute_stats(std::vector<double> samples) {
  if (samples.empty()) throw Error(ErrorKind::internal, "timing statistics of an empty sample");
  std::sort(samples.begin(), samples.end());
  TimingStats stats;
  stats.count = samples.size();
  stats.min = samples.front();
  stats.max = samples.back();
  stats.median = quantile(samples, 0.5);
  stats.p10 = quantile(samples, 0.1);
  stats.p90 = quantile(samples, 0.9);
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double s : samples) deviations.push_back(std::fabs(s - stats.median));
  std::sort(deviations.begin(), deviations.end());
  stats.mad = quantile(deviations, 0.5);
  return stats;
}

}  // namespace vktune::vk
