#pragma once
// The device vktune runs on, as the runtime library's lookup sees it: its
// identity (with the physical GPU's UUID) and what it offers. `vktune bench`
// finds the winners to time through the same lookup an application uses.
#include "harness/device_info.hpp"
#include "vktune_runtime.hpp"

namespace vktune {

runtime::DeviceIdentity runtime_identity(const vk::DeviceInfo& info);
// The features the harness enables when the device has them (harness/device.cpp),
// named as runtime::required_features names them, and the limits a contract checks.
runtime::DeviceCapabilities runtime_capabilities(const vk::DeviceInfo& info);

}  // namespace vktune
