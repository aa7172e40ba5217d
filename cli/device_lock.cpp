#include "cli/device_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <thread>

#include "common/error.hpp"

namespace vktune {

namespace fs = std::filesystem;

fs::path lock_directory() {
  fs::path dir;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && fs::path(runtime).is_absolute()) {
    dir = fs::path(runtime) / "vktune";
  } else {
    dir = fs::temp_directory_path() / ("vktune-" + std::to_string(getuid()));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir;
}

std::string device_lock_key(const vk::DeviceInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  return std::to_string(info.vendor_id) + "-" + std::to_string(info.device_id) + "-" + info.name;
}

namespace {

// Keeps the name to letters, digits, '-' and '_'.
std::string file_name_for(const std::string& key) {
  std::string name = "device-";
  for (char c : key) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return name + ".lock";
}

std::string read_holder(int fd) {
  char buffer[32] = {};
  const auto n = pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid = n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

DeviceLock::DeviceLock(const std::string& key, const std::string& device_name, std::ostream& messages,
                       const std::function<bool()>& stop)
    : path_(lock_directory() / file_name_for(key)) {
  const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error(ErrorKind::io, "cannot open the device lock " + path_.string() + ": " + std::strerror(errno) +
                                   " (give --shared-device to tune without it)");
  }
  bool told = false;
  // Polled rather than a blocking flock, so that Ctrl-C (which only sets a
  // flag) ends the wait.
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      close(fd);
      throw Error(ErrorKind::io, "cannot lock " + path_.string() + ": " + std::strerror(errno));
    }
    if (!told) {
      messages << "vktune: " << device_name << " is being tuned by another vktune (pid " << read_holder(fd)
               << "); waiting for it to finish, since two tuners would skew each other's timings "
                  "(--shared-device tunes anyway)"
               << std::endl;
      told = true;
    }
    if (stop()) {
      close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  fd_ = fd;
  const auto pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const auto written = pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace vktune
