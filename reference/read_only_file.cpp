#include "reference/read_only_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace vktune::ref {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int error_number) {
  throw Error(ErrorKind::io, "cannot " + what + " '" + path.string() + "': " + std::strerror(error_number));
}

}  // namespace

ReadOnlyFile::ReadOnlyFile(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(path, "open", errno);
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error_number = errno;
    ::close(fd_);
    fail(path, "stat", error_number);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw Error(ErrorKind::io, "'" + path.string() + "' is not a regular file");
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), size_(std::exchange(other.size_, 0)) {}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReadOnlyFile::read_at(std::uint64_t offset, std::span<std::uint8_t> out, const std::string& what) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path_, "read " + what + " from", errno);
    if (n == 0) {
      struct stat info {};
      const std::string now = ::fstat(fd_, &info) == 0 ? std::to_string(info.st_size) + " bytes" : "shorter";
      throw Error(ErrorKind::io, "'" + path_.string() + "' shrank while it was read: it was " + std::to_string(size_) +
                                     " bytes when opened and is now " + now + ", so " + what + " (bytes " +
                                     std::to_string(offset) + " to " + std::to_string(offset + out.size()) +
                                     ") is gone");
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace vktune::ref
