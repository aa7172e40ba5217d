#pragma once
// Registers one Google Benchmark per (kernel, shape, variant) for the stored
// winners of a device and their kernels' baselines, timed on the GPU with
// timestamp queries (manual time), reporting bytes_per_second,
// items_per_second (FLOP/s) and pct_peak against the device's measured
// ceiling.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/stored_drift.hpp"
#include "common/cache_mode.hpp"
#include "harness/device_info.hpp"

namespace vktune::bench {

struct BenchOptions {
  std::uint32_t device = 0;
  std::string db;                    // "" = the default database
  std::vector<std::string> kernels;  // empty = every kernel with winners
  CacheMode cache_mode = CacheMode::cold;
  // Iterations per benchmark. Each is one submission of 15 timed samples (K
  // back-to-back dependent dispatches each) after a short warm-up, reporting
  // their median per dispatch: a fixed count, because Google Benchmark's
  // --benchmark_min_time would count per-dispatch microseconds and ask for
  // tens of thousands of iterations.
  int iterations = 10;
};

struct Registered {
  std::size_t benchmarks = 0;
  vk::DeviceInfo device;             // the device they run on
  std::filesystem::path database;    // the database their winners came from
  // Each winner as the benchmarks met it, filled in as they run.
  std::shared_ptr<std::vector<WinnerTime>> winners;
};

// Registers the benchmarks and says how many, on what device, from which
// database; throws vktune::Error.
Registered register_kernel_benchmarks(const BenchOptions& options);

}  // namespace vktune::bench
