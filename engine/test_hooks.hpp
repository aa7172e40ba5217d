#pragma once
// Hooks that let the test suite rebuild failures a healthy machine does not
// produce on demand: a GPU timeout, a driver crash, a full disk and a wrong layer in a chain. Each is an environment
// variable named VKTUNE_TEST_*, read where the failure would happen; unset
// (always, outside the tests) they change nothing.
#include <chrono>
#include <cstddef>
#include <optional>

namespace vktune::test_hooks {

// VKTUNE_TEST_VALIDATION_TIMEOUT_MS: the timeout of a variant's validation
// submissions, instead of the device's default (so a slow template times out
// in a test without waiting minutes).
std::optional<std::chrono::milliseconds> validation_timeout();

// VKTUNE_TEST_CRASH_AT_VARIANT=N: the N-th variant (1-based) this process
// puts on the device raises SIGSEGV right before its dispatch, as a driver
// crash would. Call once per variant, just before dispatching it.
void before_dispatch();

// VKTUNE_TEST_RECORD_FAILS_AT=N: the N-th result (1-based) this process
// stores fails as SQLite fails on a full disk (Error(database), "database or
// disk is full"). Call once per result, just before storing it.
void before_record();

// VKTUNE_TEST_WRONG_CHAIN_LAYER=N: `vktune mobilenet` uploads layer N's
// (1-based) bias off by one, so a test sees that its check names that layer.
std::optional<std::size_t> wrong_chain_layer();

}  // namespace vktune::test_hooks
