#pragma once
// A variant's pipeline statistics as one JSON object by the driver's names
// ({"Register Count": 40, ...}): the form the store keeps them in and the
// tune report shows.
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/pipeline_statistics.hpp"

namespace vktune {

inline nlohmann::json statistics_json(const std::vector<vk::PipelineStatistic>& statistics) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& s : statistics) object[s.name] = s.value;
  return object;
}

}  // namespace vktune
