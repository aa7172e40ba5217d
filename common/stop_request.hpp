#pragma once
// Whether the user asked the process to stop: the first SIGINT or SIGTERM,
// which the command line's handler (cli/interrupt.hpp) records here. Lower
// layers read it where they would otherwise wait without bound for someone
// else (SQLite's wait for another process's lock), so that the first Ctrl-C
// ends that wait instead of being held until the lock frees.
namespace vktune {

// Records `signal_number` unless a stop was already requested.
// Async-signal-safe.
void request_stop(int signal_number) noexcept;
// The signal that asked to stop; 0 when none has.
int stop_signal() noexcept;
// Forgets a request (a new handler's lifetime starts clean).
void clear_stop_request() noexcept;

}  // namespace vktune
