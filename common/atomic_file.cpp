#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include "common/error.hpp"
#include "common/stop_request.hpp"

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

// The temporary files open in this process, for a signal handler that ends
// the process at once (cli/interrupt.cpp: a second Ctrl-C) to remove: a slot
// is claimed with an atomic flag, never a lock, and unlink() is
// async-signal-safe. Files past kSlots (none today: a command writes one at
// a time) are removed by their destructors only.
constexpr std::size_t kSlots = 16;
struct TemporarySlot {
  std::atomic<bool> claimed{false};  // by a file
  std::atomic<bool> ready{false};    // its path written: the handler may read it
  char path[4096]{};
};
TemporarySlot temporary_slots[kSlots];

int register_temporary(const std::filesystem::path& path) noexcept {
  const std::string& text = path.native();
  if (text.size() >= sizeof(TemporarySlot::path)) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (temporary_slots[i].claimed.compare_exchange_strong(expected, true)) {
      std::memcpy(temporary_slots[i].path, text.c_str(), text.size() + 1);
      temporary_slots[i].ready.store(true);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot < 0) return;
  temporary_slots[slot].ready.store(false);
  temporary_slots[slot].claimed.store(false);
}

}  // namespace

void remove_temporaries_now() noexcept {
  for (auto& slot : temporary_slots) {
    if (slot.ready.load()) ::unlink(slot.path);
  }
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::random_device device;
  std::mt19937_64 random(device() ^ static_cast<std::uint64_t>(
                                        std::chrono::steady_clock::now().time_since_epoch().count()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary_ = temporary_name(target_, random());
    // O_EXCL: never reuse or follow another file's name; 0666 so that the
    // user's umask decides the final permissions, as for a plain create.
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      slot_ = register_temporary(temporary_);
      return;
    }
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
  const auto* bytes = static_cast<const char*>(data);
  if (buffer_.empty() && size >= kChunk) {  // large: straight to the file, not through a copy
    write_out(bytes, size);
    return;
  }
  buffer_.append(bytes, size);
  if (buffer_.size() >= kChunk) flush();
}

void AtomicFile::flush() {
  write_out(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write_out(const char* bytes, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    // A Ctrl-C while a large file is written (a dequantized tensor, a random
    // model) ends the write, and the temporary file with it.
    if (const int signal_number = stop_signal(); signal_number != 0) {
      discard();
      throw Error(ErrorKind::io, "interrupted by signal " + std::to_string(signal_number) + " while writing '" +
                                     target_.string() + "' (nothing was written to it)");
    }
    const ssize_t n = ::write(fd_, bytes + done, std::min(size - done, kChunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n == 0 ? EIO : errno);
    done += static_cast<std::size_t>(n);
  }
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
  unregister_temporary(slot_);
  slot_ = -1;
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
  unregister_temporary(slot_);
  slot_ = -1;
  buffer_.clear();
}

}  // namespace vktune
