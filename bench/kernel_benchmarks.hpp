#pragma once
// Registers one Google Benchmark per (kernel, shape, variant) for the stored
// winners of a device and their kernels' baselines, timed on the GPU with
// timestamp queries (manual time), reporting bytes_per_second,
// items_per_second (FLOP/s) and pct_peak against the device's measured
// ceiling.
#include <cstdint>
#include <string>
#include <vector>

namespace vktune::bench {

struct BenchOptions {
  std::uint32_t device = 0;
  std::string db;                    // "" = the default database
  std::vector<std::string> kernels;  // empty = every kernel with winners
  std::string cache_mode = "cold";
};

// Returns how many benchmarks were registered; throws vktune::Error.
std::size_t register_kernel_benchmarks(const BenchOptions& options);

}  // namespace vktune::bench
