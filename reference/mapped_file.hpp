#pragma once
// A read-only memory mapping of a whole file (POSIX mmap), so a multi-GB model
// can be listed without reading it. Move-only; unmaps on destruction.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace vktune::ref {

class MappedFile {
 public:
  // Maps `path`; throws Error(io) naming the file and the reason.
  explicit MappedFile(const std::filesystem::path& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }

 private:
  void release() noexcept;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace vktune::ref
