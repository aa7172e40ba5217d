#include "cli/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <ctime>

#include "common/atomic_file.hpp"
#include "common/stop_request.hpp"

namespace vktune {

namespace {

timespec first_at{};                       // when it came (CLOCK_MONOTONIC)
struct sigaction previous_int, previous_term;

// One signal can arrive twice at once: `timeout` sends it to the process and
// to its group. Only a signal this long after the first counts as a second.
constexpr long kSecondSignalAfterNs = 100'000'000;

void on_signal(int number) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  if (stop_signal() == 0) {
    first_at = now;
    request_stop(number);
    return;
  }
  const long long since = (now.tv_sec - first_at.tv_sec) * 1'000'000'000LL + (now.tv_nsec - first_at.tv_nsec);
  if (since < kSecondSignalAfterNs) return;
  // Only async-signal-safe calls here: unlink, write and _exit.
  remove_temporaries_now();
  const char message[] = "\nvktune: second signal, stopping at once\n";
  [[maybe_unused]] const auto written = write(STDERR_FILENO, message, sizeof message - 1);
  _exit(128 + stop_signal());
}

}  // namespace

InterruptGuard::InterruptGuard() {
  clear_stop_request();
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking wait returns early and sees the flag sooner.
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

std::optional<std::string> InterruptGuard::reason() {
  const int number = stop_signal();
  if (number == 0) return std::nullopt;
  return std::string("interrupted by ") + (number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "a signal");
}

int InterruptGuard::exit_code() { return stop_signal() == 0 ? 0 : 128 + stop_signal(); }

}  // namespace vktune
