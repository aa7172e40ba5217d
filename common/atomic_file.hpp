#pragma once
// A file that appears whole or not at all. Bytes go to a temporary file in the
// target's directory (so the final rename stays on one file system and is
// atomic); commit() flushes it to disk and renames it over the target. If
// anything fails first (a full disk, an exception while producing the bytes)
// the temporary file is removed and the target is left as it was: a reader
// never sees a partial output that looks complete. A stop the user asked for
// (common/stop_request.hpp) fails the next write the same way, and a handler
// that ends the process at once calls remove_temporaries_now() first.
#include <cstddef>
#include <filesystem>
#include <string>

namespace vktune {

class AtomicFile {
 public:
  // Creates the temporary file beside `target`; Error(io) naming `target` if
  // its directory is not writable.
  explicit AtomicFile(std::filesystem::path target);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  // Appends bytes; Error(io) naming the target and the reason (e.g. "No space
  // left on device") on failure.
  void write(const void* data, std::size_t size);
  // Flushes, syncs and renames onto the target. After an Error nothing of the
  // temporary file remains.
  void commit();

  const std::filesystem::path& temporary_path() const { return temporary_; }

 private:
  void flush();
  void write_out(const char* bytes, std::size_t size);  // in chunks, a stop checked before each
  [[noreturn]] void fail(const std::string& what, int error_number);
  void discard() noexcept;

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  std::string buffer_;  // writes are gathered into large chunks
  bool committed_ = false;
  int slot_ = -1;  // its entry among the temporaries remove_temporaries_now() removes
};

// Removes every temporary file of an AtomicFile not yet committed or
// discarded, for a signal handler about to end the process with _exit.
// Async-signal-safe.
void remove_temporaries_now() noexcept;

}  // namespace vktune
