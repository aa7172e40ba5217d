#pragma once
// Reads measurements back from the CSV that `vktune export --format csv`
// writes (results/export_csv.hpp), for replaying stored searches. Only the
// columns a replay needs are required; a file without them, or with a
// malformed line, is rejected with Error(format) naming the line.
#include <filesystem>
#include <vector>

#include "results/export_csv.hpp"

namespace vktune::results {

std::vector<MeasurementRow> read_measurements_csv(const std::filesystem::path& path);

}  // namespace vktune::results
