#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include "common/error.hpp"

namespace vktune {

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

// ".NAME.<random>.partial" beside the target: hidden, and clearly not the
// finished file if a crash (SIGKILL, power loss) leaves it behind.
std::filesystem::path temporary_name(const std::filesystem::path& target, std::uint64_t salt) {
  const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  return directory / ("." + target.filename().string() + "." + std::to_string(::getpid()) + "." +
                      std::to_string(salt % 1000000007u) + ".partial");
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::random_device device;
  std::mt19937_64 random(device() ^ static_cast<std::uint64_t>(
                                        std::chrono::steady_clock::now().time_since_epoch().count()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary_ = temporary_name(target_, random());
    // O_EXCL: never reuse or follow another file's name; 0666 so that the
    // user's umask decides the final permissions, as for a plain create.
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EEXIST) break;
  }
  const int error_number = errno;
  throw Error(ErrorKind::io, "cannot create '" + target_.string() + "' (temporary file " + temporary_.string() +
                                 "): " + std::strerror(error_number));
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::write(const void* data, std::size_t size) {
  buffer_.append(static_cast<const char*>(data), size);
  if (buffer_.size() >= kChunk) flush();
}

void AtomicFile::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n == 0 ? EIO : errno);
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void AtomicFile::commit() {
  flush();
  // fsync before the rename: otherwise a crash soon after could leave the new
  // name pointing at a file whose data never reached the disk.
  if (::fsync(fd_) != 0) fail("sync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close", errno);
  std::error_code ec;
  std::filesystem::rename(temporary_, target_, ec);
  if (ec) fail("rename the temporary file onto", ec.value());
  committed_ = true;
}

void AtomicFile::fail(const std::string& what, int error_number) {
  discard();
  throw Error(ErrorKind::io, "cannot " + what + " '" + target_.string() + "': " + std::strerror(error_number) +
                                 " (nothing was written to it)");
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  std::filesystem::remove(temporary_, ec);
  buffer_.clear();
}

}  // namespace vktune
