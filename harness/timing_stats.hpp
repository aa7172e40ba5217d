#pragma once
// The arithmetic of GPU timing, kept apart from Vulkan so it can be unit
// tested on synthetic counter values.
#include <cstdint>
#include <vector>

namespace vktune::vk {

// Ticks between two timestamp values of a counter that has `valid_bits`
// meaningful bits (1..64), wrapping around at 2^valid_bits.
std::uint64_t timestamp_delta(std::uint64_t begin, std::uint64_t end, std::uint32_t valid_bits);

// Ticks to nanoseconds, in double (timestampPeriod is ns per tick and may be
// fractional, e.g. 1.0 on NVIDIA, 52.08 on some Intel parts).
double ticks_to_ns(std::uint64_t ticks, double period_ns);

struct TimingStats {
  double median = 0, min = 0, max = 0, mean = 0;
  double p10 = 0, p90 = 0;
  double mad = 0;  // median absolute deviation from the median
  std::size_t count = 0;
};

// Percentiles by linear interpolation between order statistics. Throws
// Error(internal) on an empty sample.
TimingStats compute_stats(std::vector<double> samples);

}  // namespace vktune::vk
