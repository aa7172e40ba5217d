#pragma once
// Reads measurements back from the CSV that `vktune export --format csv`
// writes (results/export_csv.hpp), for replaying stored searches. Only the
// columns a replay needs are required; the others are read where present and
// left at their defaults where not (older exports have no phase and no
// durations: their rows read as search rows with zero durations). A file
// without the required columns, or with a malformed line, is rejected with
// Error(format) naming the line.
#include <filesystem>
#include <vector>

#include "results/export_csv.hpp"

namespace vktune::results {

std::vector<MeasurementRow> read_measurements_csv(const std::filesystem::path& path);

}  // namespace vktune::results
