#pragma once
// One tuner per device: two processes timing kernels on the same GPU slow
// each other down and store each other's contention as measurements (and as
// device ceilings, kept for good). A DeviceLock is an flock(2) on a file
// named after the device's UUID in the lock directory, held for the run; the
// kernel releases it when the process ends, however it ends.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "harness/device_info.hpp"

namespace vktune {

// The device's UUID, or vendor, device id and name where it has none.
std::string device_lock_key(const vk::DeviceInfo& info);

// $XDG_RUNTIME_DIR/vktune when XDG_RUNTIME_DIR is an absolute path, else
// /tmp/vktune-UID; created when missing.
std::filesystem::path lock_directory();

class DeviceLock {
 public:
  // Takes the lock of the device `key` (its UUID, or another stable key).
  // When another process holds it, says so once on `messages` (naming its
  // pid and --shared-device) and waits; gives up and returns an unlocked
  // DeviceLock when `stop()` turns true meanwhile. Throws Error(io) when the
  // lock file cannot be opened.
  DeviceLock(const std::string& key, const std::string& device_name, std::ostream& messages,
             const std::function<bool()>& stop);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace vktune
