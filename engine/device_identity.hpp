#pragma once
// How the store names a device: vendor and device id, driver version and
// name, UUID (results/records.hpp), read from what the harness found.
#include "harness/device.hpp"
#include "results/records.hpp"

namespace vktune {

results::DeviceIdentity identity_of(const vk::DeviceInfo& info);

}  // namespace vktune
