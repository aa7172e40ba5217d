#include "engine/test_hooks.hpp"

#include <csignal>
#include <cstdlib>
#include <string>

#include "common/error.hpp"

namespace vktune::test_hooks {

namespace {

std::optional<long> number_from_env(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::chrono::milliseconds> validation_timeout() {
  if (auto ms = number_from_env("VKTUNE_TEST_VALIDATION_TIMEOUT_MS")) return std::chrono::milliseconds(*ms);
  return std::nullopt;
}

void before_dispatch() {
  static const auto crash_at = number_from_env("VKTUNE_TEST_CRASH_AT_VARIANT");
  static long dispatched = 0;  // only the evaluating thread calls this
  if (crash_at && ++dispatched == *crash_at) std::raise(SIGSEGV);
}

void before_record() {
  static const auto fail_at = number_from_env("VKTUNE_TEST_RECORD_FAILS_AT");
  static long recorded = 0;  // only the evaluating thread stores results
  if (fail_at && ++recorded == *fail_at) {
    throw Error(ErrorKind::database, "database or disk is full (VKTUNE_TEST_RECORD_FAILS_AT)");
  }
}

std::optional<std::size_t> wrong_chain_layer() {
  if (auto layer = number_from_env("VKTUNE_TEST_WRONG_CHAIN_LAYER")) return static_cast<std::size_t>(*layer);
  return std::nullopt;
}

}  // namespace vktune::test_hooks
