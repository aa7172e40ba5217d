#pragma once
// Wall time of the tuner's steps, for the durations stored with each
// measurement.
#include <chrono>

namespace vktune {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Adds the time until the end of its scope to `into`, also when the step
// throws: a failed step's time is spent all the same.
struct AddElapsed {
  double& into;
  Clock::time_point start = Clock::now();
  ~AddElapsed() { into += ms_since(start); }
};

}  // namespace vktune
