#pragma once
// What the timer's warm-up reads the GPU's clock from: fixed work whose time
// depends only on how fast the GPU is clocked (harness/clock_probe.hpp).
// An idle gap is only a guess at the clock: on an H200 that measured most
// attention_decode variants 3x slow after warm-ups of 40 ms
// (measurements/nvidia-h200/session31), the GPU had had timed work within
// 200 ms, and the variants warmed up for 1 s measured right.
#include <optional>

namespace vktune::vk {

class ClockGauge {
 public:
  virtual ~ClockGauge() = default;
  // Runs the fixed work once and returns its time in ns: longer is slower.
  virtual double sample_ns() = 0;

  // The work's time at the GPU's full clock: the fastest sample yet, once a
  // warm-up of the timer's full length has run (before it, the fastest
  // sample may have been taken at the idle clock). Kept by the timer.
  std::optional<double> full_clock_ns;
};

}  // namespace vktune::vk
