#pragma once
// Reads measurements back from a T4 results file (results/export_t4.hpp's
// format, or another tool's: Kernel Tuner writes it), for `vktune replay
// --from FILE.t4`. A result with vktune's extension object keeps its kernel,
// shape, cache mode, variant hash, status and device; one without takes the
// kernel and shape given here (another tool's file records neither) and its
// status from T4's invalidity. Its time is the "time" measurement (unit s,
// ms, us or ns), else the median of times.runtimes (ms, Kernel Tuner's
// unit); compile and validation times are times.compilation_time and
// times.validation (ms). Configuration values must be whole numbers, as
// vktune's parameters are. Anything else is Error(format) naming the result.
#include <filesystem>
#include <string>
#include <vector>

#include "results/export_csv.hpp"

namespace vktune::results {

struct T4Defaults {
  std::string kernel;  // for results without vktune's extension
  std::string shape;   // "" = such results are refused, naming the option to give
};

std::vector<MeasurementRow> read_measurements_t4(const std::filesystem::path& path, const T4Defaults& defaults);

}  // namespace vktune::results
