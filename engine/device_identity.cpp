#include "engine/device_identity.hpp"

namespace vktune {

results::DeviceIdentity identity_of(const vk::DeviceInfo& info) {
  results::DeviceIdentity id;
  id.vendor_id = info.vendor_id;
  id.device_id = info.device_id;
  id.driver_version = info.driver_version_raw;
  id.name = info.name;
  id.driver_name = info.driver_name;
  id.driver_version_text = info.driver_version;
  id.device_uuid = info.device_uuid;
  id.api_version_text = info.api_version;
  return id;
}

}  // namespace vktune
