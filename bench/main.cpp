// vktune-bench: Google Benchmark over the stored winners and baselines.
//   vktune-bench [--device N] [--db PATH] [--kernel NAME|SPEC.json]... [--cache cold|hot] [--iterations N]
//                [--max-drift PCT]
//                [Google Benchmark flags: --benchmark_filter=, --benchmark_format=json, ...]
// Usually run through `vktune bench`.
#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>

#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bench/kernel_benchmarks.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "common/json_formats.hpp"
#include "kernels/spec/spec_arguments.hpp"


namespace {

constexpr const char* kAbout =
    "Benchmarks the stored winner and the baseline of every tuned (kernel, shape) of the device.\n"
    "An iteration is one submission of 15 timed samples of back-to-back dispatches; its time is\n"
    "their median per dispatch. --iterations (default 10) fixes the count, so\n"
    "--benchmark_min_time is refused; --benchmark_repetitions repeats the count.";

// Says in the report's "context" what the numbers were measured on and
// with (docs/JSON_OUTPUT.md, vktune-bench-context): a report read later, or
// committed beside others, names its GPU, driver and database. Google
// Benchmark keeps context values as strings; the keys are prefixed so that
// none can meet one of its own.
void add_context(const vktune::bench::Registered& run, const vktune::bench::BenchOptions& options) {
  using vktune::kBenchContext;
  const auto& d = run.device;
  benchmark::AddCustomContext("vktune_format", std::string(kBenchContext.name));
  benchmark::AddCustomContext("vktune_format_version", std::to_string(kBenchContext.version));
  benchmark::AddCustomContext("vktune_version", VKTUNE_VERSION);
  benchmark::AddCustomContext("vktune_device_index", std::to_string(d.index));
  benchmark::AddCustomContext("vktune_device_name", d.name);
  benchmark::AddCustomContext("vktune_device_uuid", d.device_uuid);
  benchmark::AddCustomContext("vktune_vendor_id", std::to_string(d.vendor_id));
  benchmark::AddCustomContext("vktune_device_id", std::to_string(d.device_id));
  benchmark::AddCustomContext("vktune_driver_name", d.driver_name);
  benchmark::AddCustomContext("vktune_driver_info", d.driver_info);
  benchmark::AddCustomContext("vktune_driver_version", d.driver_version);
  benchmark::AddCustomContext("vktune_driver_uuid", d.driver_uuid);
  benchmark::AddCustomContext("vktune_api_version", d.api_version);
  benchmark::AddCustomContext("vktune_database", run.database.string());
  benchmark::AddCustomContext("vktune_cache_mode", to_string(options.cache_mode));
  benchmark::AddCustomContext("vktune_iterations", std::to_string(options.iterations));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vktune;
  bench::BenchOptions options;
  std::string cache = to_string(options.cache_mode);  // --cache
  // vktune-bench's own options are parsed by CLI11 with its validators (a
  // bad value is one line and exit 2); whatever it does not know is left,
  // in order, for Google Benchmark.
  CLI::App app{kAbout, "vktune-bench"};
  app.allow_extras();
  app.footer("Every other flag goes to Google Benchmark:");
  app.add_option("--device", options.device, "Vulkan device index")
      ->capture_default_str()
      ->check(CLI::Range(0u, std::numeric_limits<std::uint32_t>::max()));
  app.add_option("--db", options.db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(CLI::ExistingFile);
  app.add_option("--kernel", options.kernels, "Only this kernel (repeatable)")->allow_extra_args(false);
  app.add_option("--cache", cache, "Which winners: those tuned with cold or with hot caches")
      ->capture_default_str()
      ->check(CLI::IsMember(cache_mode_names()));
  app.add_option("--iterations", options.iterations, "Iterations per benchmark")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  std::optional<double> max_drift;  // percent
  app.add_option("--max-drift", max_drift,
                 "Exit 1 when a winner's time here is more than PCT percent off its stored time (either way), or "
                 "it could not be measured (a wrong result, a config this vktune does not run)")
      ->check(CLI::Range(0.0, 1e6));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help: ours, then Google Benchmark's
      app.exit(e);
      benchmark::PrintDefaultHelp();
      return exit_code::ok;
    }
    std::cerr << "vktune-bench: error: " << e.what() << "\n";
    return exit_code::usage;
  }
  options.cache_mode = parse_cache_mode(cache);
  std::vector<std::string> rest = app.remaining();
  // Google Benchmark would accept these and do nothing with them here: the
  // iteration count is fixed. Refused, rather than silently ignored.
  for (const auto& flag : rest) {
    for (const char* fixed : {"--benchmark_min_time", "--benchmark_min_warmup_time"}) {
      if (flag.rfind(fixed, 0) == 0) {
        std::cerr << "vktune-bench: error: " << fixed
                  << " has no effect: each benchmark runs a fixed count of iterations (--iterations N sets it; "
                     "--benchmark_repetitions repeats the count)\n";
        return exit_code::usage;
      }
    }
  }
  std::vector<char*> passthrough{argv[0]};
  for (auto& flag : rest) passthrough.push_back(flag.data());
  try {
    // A kernel spec file (as `vktune bench my_kernel.json` passes it) is
    // registered, and benchmarked under its kernel's name.
    for (auto& kernel : options.kernels) {
      const bool spec = kernel.size() > 5 && kernel.compare(kernel.size() - 5, 5, ".json") == 0;
      if (spec) kernel = kernels::spec::register_spec_file(kernel);
    }
    int bench_argc = static_cast<int>(passthrough.size());
    benchmark::Initialize(&bench_argc, passthrough.data());
    if (benchmark::ReportUnrecognizedArguments(bench_argc, passthrough.data())) return exit_code::usage;
    const auto registered = bench::register_kernel_benchmarks(options);
    if (registered.benchmarks == 0) {
      std::cerr << "vktune-bench: error: no stored winners to benchmark for this device and cache mode\n";
      return exit_code::failure;
    }
    add_context(registered, options);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (max_drift) {
      const auto& winners = *registered.winners;
      const auto off = bench::drift_failures(winners, *max_drift / 100.0);
      for (const auto& line : off) std::cerr << "vktune-bench: drift: " << line << "\n";
      std::cerr << "vktune-bench: " << winners.size() - off.size() << " of " << winners.size()
                << " winners within " << *max_drift << "% of their stored times\n";
      // A check that measured no winner proves nothing.
      if (!off.empty() || winners.empty()) return exit_code::failure;
    }
  } catch (const Error& e) {
    std::cerr << "vktune-bench: error: " << e.what() << "\n";
    return exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "vktune-bench: error: " << e.what() << "\n";
    return exit_code::runtime_error;
  }
  return exit_code::ok;
}
