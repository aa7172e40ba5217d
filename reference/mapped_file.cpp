#include "reference/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
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

MappedFile::MappedFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "open", errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    fail(path, "stat", error_number);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw Error(ErrorKind::io, "'" + path.string() + "' is not a regular file");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ != 0) {
    void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      const int error_number = errno;
      ::close(fd);
      fail(path, "map", error_number);
    }
    data_ = static_cast<const std::uint8_t*>(mapping);
  }
  ::close(fd);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace vktune::ref
