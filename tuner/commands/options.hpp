#pragma once
// Option parsing shared by the subcommands.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "results/store.hpp"

namespace vktune::cli {

// The longest duration accepted (a year): longer is surely a typo.
inline constexpr double kMaxDurationSeconds = 366.0 * 24 * 3600;

// "90s", "5m", "1h", "90" (seconds), "1.5m"; throws Error(usage), also for a
// duration over kMaxDurationSeconds.
std::chrono::duration<double> parse_duration(const std::string& text);

// Accepts a plain non-negative integer up to `max` (no sign, no exponent).
CLI::Validator count_validator(std::uint64_t max);

// Accepts the name of a registered search strategy; the error lists them.
CLI::Validator strategy_validator();

// --space pruned|full on `cmd`, into `scope`.
void add_space_option(CLI::App& cmd, std::string& scope);

// --db if given, else the store's default path; creates the parent directory.
results::Store open_store(const std::string& db_option);

// Parses every --shape of a kernel, validating each; throws Error(usage).
std::vector<kernels::Shape> parse_shapes(const kernels::Kernel& kernel, const std::vector<std::string>& texts);

}  // namespace vktune::cli
