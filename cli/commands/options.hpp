#pragma once
// Option parsing shared by the subcommands.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/cache_mode.hpp"
#include "kernels/kernel.hpp"
#include "results/store.hpp"

namespace vktune::cli {

// The longest duration accepted (a year): longer is surely a typo.
inline constexpr double kMaxDurationSeconds = 366.0 * 24 * 3600;

// "90s", "5m", "1h", "90" (seconds), "1.5m", "0.2ms", "13.5us", "800ns";
// throws Error(usage), also for a
// duration over kMaxDurationSeconds.
std::chrono::duration<double> parse_duration(const std::string& text);

// Accepts a plain non-negative integer up to `max` (no sign, no exponent) and
// drops leading zeros; use it with transform(), which keeps that change.
CLI::Validator count_validator(std::uint64_t max);

// Accepts what parse_duration accepts, so a bad --time or --target fails at
// parse time (exit 2) with the option's name; help shows DURATION.
CLI::Validator duration_validator();

// For an output file: a directory there is bad input (exit 2), caught while
// parsing, instead of a failed rename into it that names no cause.
CLI::Validator output_file_validator();
// --db: refuses what no database can be at (results::Store::path_problem),
// with the same line in every command.
CLI::Validator database_validator();

// The registered search strategies as a CLI11 choice, so help lists them and
// an unknown name is rejected while parsing.
CLI::IsMember strategy_choices();

// --device,-d N on `cmd`: a whole number, as every subcommand takes it;
// with it, --coopmat.
CLI::Option* add_device_option(CLI::App& cmd, std::uint32_t& device, const std::string& help);

// --coopmat auto|nv|khr on `cmd`: which cooperative-matrix extension the
// tensor-core paths use (harness/coopmat_choice.hpp).
void add_coopmat_option(CLI::App& cmd);

// --cache cold|hot on `cmd`.
void add_cache_option(CLI::App& cmd, std::string& cache, const std::string& help);

// --space pruned|full on `cmd`, into `scope`.
void add_space_option(CLI::App& cmd, std::string& scope);

// How variants are built in worker processes: --compile-timeout SECONDS,
// the floor of each variant's compile and pipeline deadline (1 to 3600),
// and --jobs N, the worker processes at most (1 to 256; else exit 2).
struct IsolationArgs {
  std::optional<double> compile_timeout;
  std::optional<unsigned> jobs;
};
void add_isolation_options(CLI::App& cmd, IsolationArgs& args);

// --db if given, else the store's default path; creates the parent directory.
results::Store open_store(const std::string& db_option);

// Parses every --shape of a kernel, validating each; throws Error(usage).
std::vector<kernels::Shape> parse_shapes(const kernels::Kernel& kernel, const std::vector<std::string>& texts);

}  // namespace vktune::cli
