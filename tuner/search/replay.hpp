#pragma once
// Replaying a strategy against stored measurements (Kernel Tuner's
// "simulation mode"): the space is the configs measured at a shape, each
// evaluation returns the stored time, and the search runs exactly as a tune
// would (same loop, batches, pipelining lag and stop rules). Deterministic for
// a seed, so a strategy's quality is a computed value that tests can assert.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "results/export_csv.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune {

struct ReplayRecord {
  std::string device;  // the device's name and store row, to keep devices apart
  std::string shape, cache_mode;
  kernels::Config config;
  std::optional<double> time_ns;  // empty: the variant failed
};

// The search-phase rows of `kernel` among stored measurement rows (a CSV or
// a database); confirmation rows are left out.
std::vector<ReplayRecord> replay_records(const std::string& kernel, const std::vector<results::MeasurementRow>& rows);

struct ReplayOptions {
  std::string strategy = kSurrogateStrategy;
  std::optional<std::size_t> budget;  // evaluations per run; default: the whole space
  std::size_t runs = 20;
  std::uint64_t seed = 1;
  std::size_t batch = 4;
  // Evaluate the best configs of the nearest other shape first (the tune's
  // transfer seeding), where they were measured at this shape too.
  bool transfer = false;
  std::optional<std::string> shape;  // only this shape ("32,8,128,512")
};

// Fewer measurements than this at a shape make no meaningful replay.
inline constexpr std::size_t kMinReplayMeasurements = 20;

struct ReplayResult {
  std::string device, shape, cache_mode;
  std::size_t space = 0;  // configs measured at the shape
  double best_ns = 0;     // the fastest of them
  std::optional<std::string> transfer_from;
  std::size_t seeds = 0;  // transfer seeds found among the measured configs
  std::size_t budget = 0;
  // Per run: best time known at the start over the best found (1 = found it),
  // and the share of the space evaluated before coming within 1% and 3% of
  // it (above 1 when a run never did).
  std::vector<double> quality, share_1pct, share_3pct;
  double median_quality() const;
  double p10_quality() const;  // the worst tenth of runs did no better
  double median_share_1pct() const;
  double p90_share_1pct() const;  // 9 runs in 10 were within 1% after this share
  double median_share_3pct() const;
  double p90_share_3pct() const;
};

struct ReplayReport {
  std::vector<ReplayResult> shapes;
  std::vector<std::string> skipped;  // shapes with too few measurements, with why
};

// Throws Error(usage) when `records` hold no measurement of the kernel's
// shapes, lack the asked shape, or hold too few measurements for it.
ReplayReport replay(const kernels::Kernel& kernel, const std::vector<ReplayRecord>& records,
                    const ReplayOptions& options);

// The nearest-rank percentile q (0..1) of `values`; the median averages the
// middle two.
double percentile(std::vector<double> values, double q);
double median(std::vector<double> values);

}  // namespace vktune
