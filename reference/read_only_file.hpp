#pragma once
// A file read at explicit offsets (POSIX pread), never memory-mapped: when a
// mapped file shrinks under the reader (another process truncates or rewrites
// a model while it is being read), touching the lost pages kills the process
// with SIGBUS. Here a short read is an Error naming the file, so a multi-GB
// model can still be listed and read piecewise without loading it whole.
// Move-only; closes on destruction.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace vktune::ref {

class ReadOnlyFile {
 public:
  // Opens `path` (a regular file); Error(io) naming it and the reason.
  explicit ReadOnlyFile(const std::filesystem::path& path);
  ReadOnlyFile(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile& operator=(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  // The size when the file was opened.
  std::uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

  // Fills `out` with the bytes at `offset`. Error(io) naming the file when it
  // no longer holds them (it shrank since it was opened) or the read fails;
  // `what` says what was being read ("tensor 'w'").
  void read_at(std::uint64_t offset, std::span<std::uint8_t> out, const std::string& what) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace vktune::ref
