#pragma once
// `vktune bench --max-drift PCT`: whether each stored winner still runs in
// the time its table stores, so that a table is committed only when a
// fresh measurement of every winner on a GPU of its model agrees with it
// (issue 42, item 6: stale prefill winners stored 710 µs where a fresh tune
// found 469).
#include <string>
#include <vector>

namespace vktune::bench {

// One winner as this run met it.
struct WinnerTime {
  std::string name;          // "kernel shape"
  double stored_ns = 0;      // the table's median
  double measured_ns = 0;    // this run's median per dispatch; 0 when it could not be measured
  std::string why_not;       // why it was not measured (wrong result, a pipeline error)
};

// One line per winner off its stored time by more than `max_drift` (a
// fraction: 0.1 = 10%) either way, or not measured at all; empty when every
// winner is within it.
std::vector<std::string> drift_failures(const std::vector<WinnerTime>& winners, double max_drift);

}  // namespace vktune::bench
