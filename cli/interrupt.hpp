#pragma once
// SIGINT and SIGTERM during a tune: the first asks the run to stop after the
// variant in flight (or ends a wait for the database's lock at once) (everything measured is already committed; the command
// then checkpoints the store, prints what it has and exits 130 or 143); a
// second one ends the process at once with the same code, its commits safe
// in the store's WAL.
#include <optional>
#include <string>

namespace vktune {

// Installs the handlers for its lifetime and restores the previous ones
// after. One at a time; the flag it watches is process-wide because a signal
// is (a handler can reach nothing else): common/stop_request.hpp, where the
// store's wait for another process's lock sees it too and gives up.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // "interrupted by SIGINT" once a signal came, else nothing.
  static std::optional<std::string> reason();
  // 128 + the signal's number (130 for SIGINT, 143 for SIGTERM); 0 when none.
  static int exit_code();
};

}  // namespace vktune
