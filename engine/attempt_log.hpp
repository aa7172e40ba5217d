#pragma once
// Attempts: a variant that crashes the process (a driver segfault while its
// pipeline is created or it is dispatched) must not crash every later run
// that resumes and tries it again. Before either step, an `attempt` row is
// committed in the store under the variant's measurement key; the result
// replaces it, and a pipeline created without incident removes it again. A
// run that finds an attempt row left behind records the variant as `crashed`
// and skips it: it is never retried and never wins.
//
// A process killed (SIGKILL, power loss) while a variant was in one of those
// steps leaves the same trace as a crash and loses that one variant; SIGINT
// and SIGTERM end a run between variants, leaving none.
//
// Pipelines are created on a compile thread while the main thread measures,
// and a Store is one connection for one thread: the log has its own
// connection to the same database, shared by both threads under a mutex.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "common/cache_mode.hpp"
#include "results/store.hpp"
#include "engine/variant.hpp"

namespace vktune {

class AttemptLog {
 public:
  AttemptLog(const std::filesystem::path& database, std::int64_t device_row, std::string kernel, std::string shape,
             CacheMode cache_mode);

  // Commits an attempt of `step` ("creating its pipeline", "running it on the
  // device") for the variant. Thread-safe.
  void begin(const CompiledVariant& variant, const std::string& step);
  // Removes the variant's attempt row, if it still is one. Thread-safe.
  void end(const CompiledVariant& variant);
  // end() for a run that is ending on an error it handled (a full disk, a
  // database error, a bad_alloc while the variant ran): the process did not
  // crash, so the row must not outlive it as a crash. Never throws; false
  // when the row could not be removed (the store refused that too).
  bool forget(const CompiledVariant& variant) noexcept;

 private:
  std::mutex mutex_;
  results::Store store_;
  std::int64_t device_row_;
  std::string kernel_, shape_, cache_mode_;  // the mode as its rows hold it
};

// A measurement found on resume: an attempt without a result becomes
// `crashed` (recorded so in `store`, with a reason naming the step); others
// are returned unchanged.
results::Measurement settle_attempt(results::Measurement measurement, results::Store& store);

}  // namespace vktune
