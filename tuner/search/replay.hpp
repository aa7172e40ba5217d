#pragma once
// Replaying a strategy against stored measurements (Kernel Tuner's
// "simulation mode"): the space is the configs measured at a shape, each
// evaluation returns the stored result, and the search runs exactly as a tune
// would: the same loop, batches and stop rules; the baseline evaluated and
// observed first; failures observed as failures, with their status; the
// tune's transfer seeding (tuner/search/transfer.hpp) over the other stored
// shapes; configs stored before the kernel gained a parameter brought up to
// date as a tune brings them (engine/stale_config.hpp); and the space in the
// kernel's enumeration order, so that `exhaustive` walks it as a tune does.
// Deterministic for a seed, so a strategy's quality is a computed value that
// tests can assert.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/pipeline_statistics.hpp"
#include "kernels/kernel.hpp"
#include "results/export_csv.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune {

struct ReplayRecord {
  std::string device;  // the device's name and store row, to keep devices apart
  std::int64_t device_row = 0;
  std::uint32_t vendor_id = 0, device_id = 0;  // devices of one model share them
  std::string shape, cache_mode;
  kernels::Config config;
  results::Status status = results::Status::ok;
  std::optional<double> time_ns;  // empty: the variant failed
  bool is_winner = false;         // the stored winner of its shape was chosen from this row
  results::PhaseDurations durations;  // zeros when the store had none
  std::vector<vk::PipelineStatistic> statistics;  // the driver's, where it reported them
};

// The search-phase rows of `kernel` among stored measurement rows (a CSV or
// a database); confirmation rows are left out.
std::vector<ReplayRecord> replay_records(const std::string& kernel, const std::vector<results::MeasurementRow>& rows);

struct ReplayOptions {
  std::string strategy = kSurrogateStrategy;
  std::optional<std::size_t> budget;  // evaluations per run besides the baseline; default: the whole space
  std::size_t runs = 20;
  std::uint64_t seed = 1;
  std::size_t batch = 4;
  // Evaluate the tune's transfer seeds first: the best configs of the
  // nearest other stored shapes (tuner/search/transfer.hpp), where they were
  // measured at this shape too.
  bool transfer = false;
  std::optional<std::string> shape;  // only this shape ("32,8,128,512")
  // A simulated wall-clock budget per run, in seconds: the clock starts at
  // zero and advances by each evaluated config's stored cost (its compile,
  // pipeline, validation, warm-up and timing durations, or
  // kAssumedSecondsPerVariant where none were stored); the search stops as a
  // tune's --time stops it, before the first evaluation past the budget.
  std::optional<double> time_seconds;
  // The strategy is not told what evaluations cost (the clock still counts
  // it): to compare a cost-aware search with a cost-blind one.
  bool hide_costs = false;
  // Defer configs whose stored pipeline statistics say their code spills,
  // as a tune does (BatchEvaluator::defer). The driver's zero for each
  // statistic is taken as its smallest value among the shape's rows (a
  // replay has no empty shader to ask the driver about).
  bool pipeline_statistics = true;
  // End each run once its best is within this share of the stored best (a
  // tune's --target and --within, aimed at the stored best): the shares and
  // seconds to within 1% and 3% do not depend on what a run does after it
  // got there, so scoring them needs no more.
  std::optional<double> stop_within;
};

// What one evaluation is taken to cost where the store holds no durations
// (exports from before schema version 3 hold none): the H100's tunes of
// matmul_q6k in measurements/nvidia-h100/session13 spent 0.15 to 1.8 s per
// variant (1.8 s with compiles, 0.15 s with cached SPIR-V).
inline constexpr double kAssumedSecondsPerVariant = 1.0;

// Fewer measurements than this at a shape make no meaningful replay.
inline constexpr std::size_t kMinReplayMeasurements = 20;

struct ReplayResult {
  std::string device, shape, cache_mode;
  std::size_t space = 0;  // configs measured at the shape (after bringing them up to date)
  std::size_t stale = 0;  // stored configs no path of today's kernel completes: left out
  double best_ns = 0;     // the fastest of them
  // The kernel's baseline at this shape, when it was measured: every run
  // evaluates it first (as a tune does) and counts it.
  std::optional<double> baseline_ns;
  bool baseline_measured = false;
  std::vector<std::string> transfer_from;
  std::size_t seeds = 0;  // transfer seeds found among the measured configs
  std::size_t budget = 0;
  // How `exhaustive` ordered the space: false = the kernel's enumeration
  // order, true = a random order because a budget may cut the search.
  bool bounded = false;
  // Where the costs the clock counts come from: "stored" (every result's
  // durations), "assumed" (none stored: kAssumedSecondsPerVariant each) or
  // "mixed" (assumed where none were stored; the strategy is told only the
  // stored ones).
  std::string durations = "assumed";
  // Per run: best time known at the start over the best found (1 = found it),
  // and the share of the space evaluated (the baseline and seeds included)
  // before coming within 1% and 3% of it (above 1 when a run never did);
  // the evaluations and the simulated seconds that took (infinite when a
  // run never did), and the simulated seconds the whole run took.
  std::vector<double> quality, share_1pct, share_3pct;
  std::vector<double> evaluations_1pct, seconds_1pct, seconds_used;
  double median_quality() const;
  double p10_quality() const;  // the worst tenth of runs did no better
  double median_share_1pct() const;
  double p90_share_1pct() const;  // 9 runs in 10 were within 1% after this share
  double median_share_3pct() const;
  double p90_share_3pct() const;
  double median_evaluations_1pct() const;
  double p90_evaluations_1pct() const;
  double median_seconds_1pct() const;
  double p90_seconds_1pct() const;
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
