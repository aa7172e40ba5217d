#pragma once
// The H200's committed measurement sets that the replay tests read, and how
// they read one (as a tune's store would hold it).
#include <filesystem>
#include <string>
#include <vector>

#include "results/import_csv.hpp"
#include "tuner/search/replay.hpp"

namespace vktune::testing {

inline const std::filesystem::path kMeasurements =
    std::filesystem::path(VKTUNE_SOURCE_DIR) / "measurements/nvidia-h200";

inline std::vector<ReplayRecord> records(const std::filesystem::path& csv, const std::string& kernel) {
  return replay_records(kernel, results::read_measurements_csv(csv));
}

}  // namespace vktune::testing
