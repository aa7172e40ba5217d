#include "cli/commands/options.hpp"

#include "harness/coopmat_choice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "results/store.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune::cli {

std::chrono::duration<double> parse_duration(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used ? text.substr(used) : "";
  double scale = 0;
  // --target is a kernel time (microseconds), --time a run's (minutes):
  // both take the same units.
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us" || unit == "\u00b5s") scale = 1e-6;
  else if (unit == "ns") scale = 1e-9;
  else if (unit == "m" || unit == "min") scale = 60;
  else if (unit == "h") scale = 3600;
  if (used == 0 || scale == 0 || !std::isfinite(value) || value <= 0) {
    throw Error(ErrorKind::usage, "malformed duration '" + text + "': use e.g. 90s, 5m, 1h, 0.2ms or 13.5us");
  }
  // A deadline is now + this in steady_clock ticks (ns): far past a year it
  // would overflow into the past and silently tune nothing.
  if (value * scale > kMaxDurationSeconds) {
    throw Error(ErrorKind::usage, "duration '" + text + "' is out of range: at most " +
                                      std::to_string(static_cast<long>(kMaxDurationSeconds / 3600)) + "h");
  }
  return std::chrono::duration<double>(value * scale);
}

CLI::Validator count_validator(std::uint64_t max) {
  // CLI11 would read "-1" into an unsigned option as 2^64-1 and a number past
  // 2^64 as whatever it wraps to: check the text itself.
  return CLI::Validator(
      [max](std::string& text) {
        // Compared as digit strings, not as doubles: 2^64 and 2^64-1 are the
        // same double, and --seed takes the whole 64-bit range.
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const auto significant = digits ? text.substr(std::min(text.find_first_not_of('0'), text.size() - 1)) : "";
        const auto limit = std::to_string(max);
        if (digits && (significant.size() < limit.size() || (significant.size() == limit.size() && significant <= limit))) {
          text = significant;  // CLI11 would read a leading 0 as octal: 010 is ten, not eight
          return std::string();
        }
        return "'" + text + "' is not a whole number from 0 to " + std::to_string(max);
      },
      "COUNT");
}

results::Store open_store(const std::string& db_option) {
  const std::filesystem::path path = db_option.empty() ? results::Store::default_path() : std::filesystem::path(db_option);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(ErrorKind::io, "cannot create directory " + path.parent_path().string() + ": " + ec.message());
  return results::Store::open(path);
}

std::vector<kernels::Shape> parse_shapes(const kernels::Kernel& kernel, const std::vector<std::string>& texts) {
  std::vector<kernels::Shape> shapes;
  for (const auto& text : texts) {
    auto shape = kernels::parse_shape(text, kernel.shape_dims().size());
    kernel.validate_shape(shape);
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

CLI::Validator duration_validator() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          parse_duration(text);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "DURATION");
}

CLI::Validator output_file_validator() {
  return CLI::Validator(
      [](std::string& path) {
        return std::filesystem::is_directory(path) ? "cannot write " + path + ": it is a directory (give a file name)"
                                                   : std::string();
      },
      "FILE");
}

CLI::Validator database_validator() {
  return CLI::Validator([](std::string& path) { return results::Store::path_problem(path); }, "FILE");
}

CLI::IsMember strategy_choices() {
  std::vector<std::string> names;
  for (const auto* info : registered_strategies()) names.push_back(info->name);
  return CLI::IsMember(names);
}

CLI::Option* add_device_option(CLI::App& cmd, std::uint32_t& device, const std::string& help) {
  add_coopmat_option(cmd);
  return cmd.add_option("--device,-d", device, help)
      ->capture_default_str()
      ->transform(count_validator(std::numeric_limits<std::uint32_t>::max()));
}

void add_coopmat_option(CLI::App& cmd) {
  // Set while parsing: before any device is opened, and inherited by the
  // worker processes a tune starts (harness/coopmat_choice.hpp).
  cmd.add_option_function<std::string>(
         "--coopmat",
         [](const std::string& text) { vk::set_coopmat_request(vk::parse_coopmat_request(text, "--coopmat")); },
         "the cooperative-matrix extension the tensor-core paths use: auto (VK_KHR_cooperative_matrix, through "
         "vktune's NV-to-KHR pass, where the device offers it, else VK_NV_cooperative_matrix), nv or khr "
         "(a usage error on a device without it); also VKTUNE_COOPMAT")
      ->type_name("auto|nv|khr")
      ->check(CLI::IsMember({"auto", "nv", "khr"}));
}

void add_cache_option(CLI::App& cmd, std::string& cache, const std::string& help) {
  cmd.add_option("--cache", cache, help)->capture_default_str()->check(CLI::IsMember(cache_mode_names()));
}

void add_space_option(CLI::App& cmd, std::string& scope) {
  cmd.add_option("--space", scope,
                 "pruned: skip the configs the kernel's pruning rules drop on this device (see `vktune list`); "
                 "full: every legal config")
      ->capture_default_str()
      ->check(CLI::IsMember({"pruned", "full"}));
}

void add_isolation_options(CLI::App& cmd, IsolationArgs& args) {
  cmd.add_option("--compile-timeout", args.compile_timeout,
                 "Seconds a variant's compile, and its pipeline creation, may take at least in its worker process "
                 "before it is ended and recorded as compile_timeout or pipeline_timeout (default: 10 on a GPU, "
                 "120 on a CPU device; the deadline grows to 10x the median the run has seen)")
      ->check(CLI::Range(1.0, 3600.0));
  cmd.add_option("--jobs,-j", args.jobs,
                 "Worker processes that compile variants and create their pipelines at once (default: one per "
                 "core, at most 8)")
      ->check(CLI::Range(1u, 256u));
}

}  // namespace vktune::cli
