#include "harness/timer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/error.hpp"
#include "harness/query_pool.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

namespace {

// `n` windows of `k` dispatches, back to back in one submission so the GPU
// never waits for the CPU between them. Both timestamps of a window are taken
// at the bottom of the pipe: a window starts when everything before it has
// finished, so windows never overlap. Returns each window's length in ns.
std::vector<double> run_windows(Device& device, QueryPool& queries, const RecordDispatch& record,
                                std::uint64_t& next_dispatch, std::uint32_t k, std::uint32_t n,
                                std::chrono::nanoseconds timeout) {
  CommandBuffer cmd(device);
  cmd.begin();
  vkCmdResetQueryPool(cmd.handle(), queries.handle(), 0, 2 * n);
  for (std::uint32_t w = 0; w < n; ++w) {
    if (w > 0) compute_barrier(cmd.handle());
    vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries.handle(), 2 * w);
    for (std::uint32_t i = 0; i < k; ++i) {
      if (i > 0) compute_barrier(cmd.handle());
      record(cmd.handle(), next_dispatch++);
    }
    vkCmdWriteTimestamp(cmd.handle(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries.handle(), 2 * w + 1);
  }
  cmd.end();
  cmd.submit_and_wait(timeout);

  std::vector<std::uint64_t> stamps(2 * n);
  check(vkGetQueryPoolResults(device.handle(), queries.handle(), 0, 2 * n, stamps.size() * sizeof(std::uint64_t),
                              stamps.data(), sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  const auto& info = device.info();
  std::vector<double> windows;
  for (std::uint32_t w = 0; w < n; ++w) {
    windows.push_back(
        ticks_to_ns(timestamp_delta(stamps[2 * w], stamps[2 * w + 1], info.timestamp_valid_bits), info.timestamp_period_ns));
  }
  return windows;
}

// Windows per warm-up submission: about 10 ms of GPU work.
constexpr double kWarmupBatchNs = 10e6;
constexpr std::uint32_t kMaxWindowsPerSubmission = 64;
// The warm-up has settled when this many batches in a row are no more than
// this fraction faster than the fastest batch before them.
constexpr int kSettledBatches = 3;
constexpr double kSettledFraction = 0.02;
// The clock gauge reads the full clock when its work takes no more than
// this fraction longer than at the fastest reading.
constexpr double kClockSlack = 0.03;
// A GPU under sustained load may hold a clock below the fastest it has shown
// (its power or thermal limit; phones' GPUs throttle within minutes), and
// every warm-up would then last warmup_after_idle. So the clock also counts
// as up on a plateau: the gauge's last kPlateauReadings readings
// within kPlateauSpread of each other, none slower than the full clock over
// kPlateauFloor. An idle H200 (345 MHz: 5.7x slower) is far below the floor,
// and one ramping up gains about 2% per 10-ms batch, more than the spread.
constexpr std::size_t kPlateauReadings = 5;
constexpr double kPlateauSpread = 0.015;
constexpr double kPlateauFloor = 0.9;

// Whether the gauge's last readings are a plateau near the full clock (above).
bool on_clock_plateau(const std::vector<double>& readings, double full_clock_ns) {
  if (readings.size() < kPlateauReadings) return false;
  const auto last = readings.end() - static_cast<std::ptrdiff_t>(kPlateauReadings);
  const auto [low, high] = std::minmax_element(last, readings.end());
  return *high <= *low * (1 + kPlateauSpread) && *high * kPlateauFloor <= full_clock_ns;
}

}  // namespace

TimingResult time_dispatches(Device& device, const RecordDispatch& record, const TimerOptions& options) {
  const auto& info = device.info();
  if (info.timestamp_valid_bits == 0 || info.timestamp_period_ns <= 0) {
    throw Error(ErrorKind::device_limit, info.name + "'s compute queue does not support timestamp queries");
  }
  const auto samples = static_cast<std::uint32_t>(std::max(1, options.samples));
  QueryPool queries(device, 2 * std::max(samples, kMaxWindowsPerSubmission));
  std::uint64_t next_dispatch = 0;

  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  // Probe with one dispatch (after one untimed warm-up) to size the window
  // and the warm-up batches.
  std::uint32_t k = options.dispatches_per_sample;
  double one = 0;
  double clock_ratio = 0;  // the clock gauge's last reading over the full clock's
  bool clock_not_up = false;  // the warm-up's last gauge reading was not the full clock
  if (k == 0 || options.warmup.count() > 0) {
    run_windows(device, queries, record, next_dispatch, 1, 1, options.timeout);
    one = std::max(1.0, run_windows(device, queries, record, next_dispatch, 1, 1, options.timeout)[0]);
  }
  if (k == 0) {
    const double wanted = std::ceil(options.min_window_ns / one);
    k = static_cast<std::uint32_t>(std::clamp(wanted, 1.0, static_cast<double>(options.max_dispatches_per_sample)));
  }

  // Warm-up: keep the GPU busy for a while before measuring. GPUs lower their
  // clocks when they see little work (an H200 fell from 1980 to 345 MHz
  // during a tuning run of short submissions, making kernels 5x slower), and
  // raise them again only under sustained load.
  if (options.warmup.count() == 0) {
    if (options.warmup_samples > 0) {
      run_windows(device, queries, record, next_dispatch, k,
                  std::min(static_cast<std::uint32_t>(options.warmup_samples), kMaxWindowsPerSubmission),
                  options.timeout);
    }
  } else {
    // A fixed 50 ms was not enough: an H200 drops to its idle clock while the
    // CPU compiles a batch of variants, and the first variants measured after
    // it ran 4x slow. The warm-up goes on until the clock is up (below) and
    // the workload stops getting faster.
    const auto start = std::chrono::steady_clock::now();
    const bool watch = options.watch_clock.value_or(!info.is_cpu());
    ClockGauge* gauge = watch ? device.clock_gauge() : nullptr;
    // Without a gauge, an idle gap is all there is to go by. (With one and no
    // full clock known yet, the clock never reads up below, so the warm-up
    // lasts until clock_given_up and its fastest reading becomes the full
    // clock.)
    const bool long_warmup = watch && !gauge && start - device.last_timed_end() > options.idle_gap;
    const auto clock_given_up = start + std::max(options.warmup, options.warmup_after_idle);
    const auto warm_until = long_warmup ? clock_given_up : start + options.warmup;
    const auto give_up = std::max(warm_until, start + options.warmup_limit);
    const auto batch = static_cast<std::uint32_t>(
        std::clamp(std::ceil(kWarmupBatchNs / (one * k)), 1.0, static_cast<double>(kMaxWindowsPerSubmission)));
    int warmed = 0, settled = 0;
    double fastest = std::numeric_limits<double>::infinity();
    double fastest_reading = std::numeric_limits<double>::infinity(), reading = 0;
    std::vector<double> readings;
    while (true) {
      auto windows = run_windows(device, queries, record, next_dispatch, k, batch, options.timeout);
      warmed += static_cast<int>(batch);
      std::nth_element(windows.begin(), windows.begin() + windows.size() / 2, windows.end());
      const double median = windows[windows.size() / 2];
      settled = median >= fastest * (1.0 - kSettledFraction) ? settled + 1 : 0;
      fastest = std::min(fastest, median);
      bool clock_up = true;
      if (gauge) {
        reading = gauge->sample_ns();
        readings.push_back(reading);
        fastest_reading = std::min(fastest_reading, reading);
        clock_up = gauge->full_clock_ns && (reading <= *gauge->full_clock_ns * (1 + kClockSlack) ||
                                            on_clock_plateau(readings, *gauge->full_clock_ns));
      }
      const auto now = std::chrono::steady_clock::now();
      clock_not_up = !clock_up;
      if (now >= give_up) break;
      if (warmed >= options.warmup_samples && now >= warm_until && settled >= kSettledBatches &&
          (clock_up || now >= clock_given_up)) {
        break;
      }
    }
    if (gauge) {
      // The first warm-up found the full clock; a faster reading since is nearer it.
      gauge->full_clock_ns = std::min(gauge->full_clock_ns.value_or(fastest_reading), fastest_reading);
      clock_ratio = reading / *gauge->full_clock_ns;
    }
  }

  TimingResult result;
  result.dispatches_per_sample = k;
  result.clock_ratio = clock_ratio;
  result.clock_given_up = clock_not_up;
  const auto warmed_up = Clock::now();
  for (double window : run_windows(device, queries, record, next_dispatch, k, samples, options.timeout)) {
    result.samples_ns.push_back(window / k);
  }
  result.warmup_ms = std::chrono::duration<double, std::milli>(warmed_up - began).count();
  result.timing_ms = std::chrono::duration<double, std::milli>(Clock::now() - warmed_up).count();
  result.per_dispatch_ns = compute_stats(result.samples_ns);
  device.note_timed_end();
  return result;
}

}  // namespace vktune::vk
