#include "common/stop_request.hpp"

#include <csignal>

namespace vktune {

namespace {
volatile std::sig_atomic_t requested = 0;  // the first signal's number
}  // namespace

void request_stop(int signal_number) noexcept {
  if (requested == 0) requested = signal_number;
}

int stop_signal() noexcept { return requested; }

void clear_stop_request() noexcept { requested = 0; }

}  // namespace vktune
