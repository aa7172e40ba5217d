#include "cli/device_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
  if (const char* chosen = std::getenv("VKTUNE_LOCK_DIR"); chosen && *chosen) {
    if (!fs::path(chosen).is_absolute()) {
      throw Error(ErrorKind::usage, std::string("VKTUNE_LOCK_DIR '") + chosen + "' is not an absolute path");
    }
    return chosen;
  }
  std::error_code ec;
  if (fs::is_directory("/run/lock", ec)) return "/run/lock";
  return fs::temp_directory_path();
}

void check_lock_directory(const fs::path& dir) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT || mkdir(dir.c_str(), 0700) != 0 || lstat(dir.c_str(), &st) != 0) {
      throw Error(ErrorKind::io, "cannot create the lock directory " + dir.string() + ": " + std::strerror(errno) +
                                     " (give --shared-device to tune without a lock)");
    }
  }
  const auto refuse = [&](const std::string& why) {
    throw Error(ErrorKind::io, "the lock directory " + dir.string() + " " + why +
                                   "; set VKTUNE_LOCK_DIR to a directory of your own, or give --shared-device");
  };
  if (S_ISLNK(st.st_mode)) refuse("is a symbolic link");
  if (!S_ISDIR(st.st_mode)) refuse("is not a directory");
  const bool trusted_owner = st.st_uid == 0 || st.st_uid == getuid();
  if (!trusted_owner) refuse("belongs to another user (uid " + std::to_string(st.st_uid) + ")");
  // Others may write there only where the sticky bit keeps them from
  // replacing or removing files they do not own (/run/lock, /tmp).
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    refuse("is writable by other users and not sticky");
  }
}

std::string device_lock_key(const vk::DeviceInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  return std::to_string(info.vendor_id) + "-" + std::to_string(info.device_id) + "-" + info.name;
}

namespace {

// Keeps the name to letters, digits, '-' and '_'.
std::string file_name_for(const std::string& key) {
  std::string name = "vktune-device-";
  for (char c : key) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return name + ".lock";
}

// A pid fits in 10 digits; the holder's line is this wide and a newline.
constexpr std::size_t kPidWidth = 20;

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
  check_lock_directory(path_.parent_path());
  // Never through a symbolic link, never blocking on a FIFO someone put
  // there, never truncating: a planted name can make this open fail, not
  // write elsewhere. Read-write to note our pid; read-only is enough for
  // flock where another user created the file without write for others.
  int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  bool writable = fd >= 0;
  if (fd < 0 && errno == EACCES) fd = open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ErrorKind::io, "cannot open the device lock " + path_.string() + ": " + std::strerror(errno) +
                                   " (give --shared-device to tune without it)");
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw Error(ErrorKind::io, "the device lock " + path_.string() +
                                   " is not a regular file (give --shared-device to tune without it)");
  }
  // Every user tunes through the same lock file: let them all open it
  // (where this fails, they open it read-only, which flock allows).
  if (writable && st.st_uid == getuid()) {
    [[maybe_unused]] const int shared = fchmod(fd, 0666);
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
  if (writable) {
    // Padded to a fixed width over whatever an earlier holder wrote: the
    // file is never truncated.
    std::string pid = std::to_string(getpid());
    pid.resize(kPidWidth, ' ');
    pid += "\n";
    [[maybe_unused]] const auto written = pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace vktune
