#pragma once
// DeviceInfo as JSON, for `vktune devices --json` and result records.
#include <nlohmann/json.hpp>

#include "harness/device_info.hpp"

namespace vktune {

nlohmann::json to_json(const vk::DeviceInfo& info);

}  // namespace vktune
