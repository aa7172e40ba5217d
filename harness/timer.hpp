#pragma once
// GPU timing with timestamp queries: each sample is a window of K
// back-to-back dispatches between two timestamps (K chosen so that
// microsecond kernels are timed over a long enough window), separated by
// barriers so each dispatch sees the previous one finished, as a dependent
// op in a model would. A timed warm-up brings the GPU's clocks up first, and
// all samples run in one submission, so the GPU never idles between them.
#include <volk.h>

#include <chrono>
#include <functional>
#include <optional>

#include "harness/commands.hpp"
#include "harness/device.hpp"
#include "harness/timing_stats.hpp"

namespace vktune::vk {

struct TimerOptions {
  int warmup_samples = 2;
  // Also keep the GPU busy with the workload for at least this long before
  // measuring, so its clocks are up (0 = only warmup_samples), and then on
  // until the workload stops getting faster (three batches of about 10 ms in a
  // row within 2% of the fastest batch), for at most warmup_limit.
  // 20 ms: a GPU that ran the previous variant moments ago is at its clock
  // already; the settling batches (at least 30 ms) and warmup_after_idle
  // handle the rest.
  std::chrono::milliseconds warmup{20};
  std::chrono::milliseconds warmup_limit{3000};
  // The warm-up follows the GPU's clock. With the device's clock gauge
  // (harness/clock_gauge.hpp), it goes on until the gauge reads within
  // kClockSlack of the full clock, or a steady clock near it (a GPU held
  // below its fastest clock under load; timer.cpp), for at most
  // warmup_after_idle (past it, the clock is what the GPU gives); the
  // device's first warm-up lasts
  // warmup_after_idle, and finds the full clock. Without a gauge, only after
  // the GPU has had no timed work for idle_gap does the warm-up last
  // warmup_after_idle. An H200 idles at 345 MHz and reached its 1980 MHz
  // about 0.7 s into sustained work, with the first ~0.2 s at the idle clock
  // (so a warm-up that only waits for the time to stop improving ends too
  // early).
  std::chrono::milliseconds idle_gap{200};
  std::chrono::milliseconds warmup_after_idle{1000};
  // Whether the warm-up follows the clock at all; unset: on a GPU, not on a
  // CPU driver (its clock does not drop between variants). Tests set it to
  // reach the rules on lavapipe.
  std::optional<bool> watch_clock;
  int samples = 15;  // measured in one submission, back to back
  // 0 = choose K from a probe so that one sample lasts min_window_ns.
  std::uint32_t dispatches_per_sample = 0;
  double min_window_ns = 500'000;
  std::uint32_t max_dispatches_per_sample = 512;
  std::chrono::nanoseconds timeout = kDefaultTimeout;
};

struct TimingResult {
  TimingStats per_dispatch_ns;  // statistics of (sample window / K)
  std::uint32_t dispatches_per_sample = 0;
  std::vector<double> samples_ns;  // per-dispatch time of each sample
  // Wall time on the CPU, for accounting where a tune's time goes: the
  // warm-up (the probe included) and the measured samples.
  double warmup_ms = 0, timing_ms = 0;
  // The clock gauge's last reading over the full clock's (1 = at full
  // clock); 0 when the warm-up did not read a gauge.
  double clock_ratio = 0;
  // Whether the warm-up ended without the gauge reading the full clock (or a
  // steady clock near it): it waited out warmup_after_idle, or warmup_limit.
  bool clock_given_up = false;
};

// Records dispatch number `i` (0-based over the whole measurement, so the
// caller can rotate input copies) into `cmd`.
using RecordDispatch = std::function<void(VkCommandBuffer cmd, std::uint64_t i)>;

// Throws Error(device_limit) when the queue has no timestamps.
TimingResult time_dispatches(Device& device, const RecordDispatch& record, const TimerOptions& options = {});

}  // namespace vktune::vk
