#pragma once
// One tuner per device: two processes timing kernels on the same GPU slow
// each other down and store each other's contention as measurements (and as
// device ceilings, kept for good). A DeviceLock is an flock(2) on a file
// named after the device's UUID in the lock directory, held for the run; the
// kernel releases it when the process ends, however it ends. The file is
// opened without following links and never truncated; the holder's pid is
// written over its first line.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "harness/device_info.hpp"

namespace vktune {

// The device's UUID, or vendor, device id and name where it has none.
std::string device_lock_key(const vk::DeviceInfo& info);

// Where the device locks live, one file per device for every user of the
// machine: $VKTUNE_LOCK_DIR when set (an absolute path; for tests and
// sandboxes), else /run/lock, else the system's temporary directory.
// Error(usage) for a relative VKTUNE_LOCK_DIR.
std::filesystem::path lock_directory();

// Creates `dir` (0700) when missing; throws Error(io) naming it when it is
// a symbolic link, not a directory, owned by a user other than root or us,
// or writable by others without the sticky bit (where another user could
// swap the lock file for a link).
void check_lock_directory(const std::filesystem::path& dir);

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
