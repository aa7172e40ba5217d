// vktune-bench: Google Benchmark over the stored winners and baselines.
//   vktune-bench [--device N] [--db PATH] [--kernel NAME]... [--cache cold|hot] [--iterations N]
//                [Google Benchmark flags: --benchmark_filter=, --benchmark_format=json, ...]
// Usually run through `vktune bench`.
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bench/kernel_benchmarks.hpp"
#include "common/error.hpp"
#include "tuner/json_formats.hpp"

#ifndef VKTUNE_VERSION
#error "VKTUNE_VERSION must be the project's version"
#endif

namespace {

void usage() {
  std::cout << "usage: vktune-bench [--device N] [--db PATH] [--kernel NAME]... [--cache cold|hot] "
               "[--iterations N] [Google Benchmark flags]\n"
               "Benchmarks the stored winner and the baseline of every tuned (kernel, shape) of the device.\n"
               "An iteration is one submission of 15 timed samples of back-to-back dispatches; its time is\n"
               "their median per dispatch. --iterations (default 10) fixes the count, so\n"
               "--benchmark_min_time has no effect; --benchmark_repetitions does.\n\n";
  benchmark::PrintDefaultHelp();
}

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
  benchmark::AddCustomContext("vktune_cache_mode", options.cache_mode);
  benchmark::AddCustomContext("vktune_iterations", std::to_string(options.iterations));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vktune;
  bench::BenchOptions options;
  std::vector<char*> passthrough{argv[0]};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&](const char* name) -> std::string {
        if (i + 1 >= argc) throw Error(ErrorKind::usage, std::string(name) + " needs a value");
        return argv[++i];
      };
      if (arg == "--help" || arg == "-h") {
        usage();
        return exit_code::ok;
      } else if (arg == "--device") {
        options.device = static_cast<std::uint32_t>(std::stoul(value("--device")));
      } else if (arg == "--db") {
        options.db = value("--db");
      } else if (arg == "--kernel") {
        options.kernels.push_back(value("--kernel"));
      } else if (arg == "--iterations") {
        options.iterations = std::stoi(value("--iterations"));
        if (options.iterations < 1) throw Error(ErrorKind::usage, "--iterations must be at least 1");
      } else if (arg == "--cache") {
        options.cache_mode = value("--cache");
        if (options.cache_mode != "cold" && options.cache_mode != "hot") {
          throw Error(ErrorKind::usage, "--cache must be cold or hot");
        }
      } else {
        passthrough.push_back(argv[i]);
      }
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
  } catch (const Error& e) {
    std::cerr << "vktune-bench: error: " << e.what() << "\n";
    return exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "vktune-bench: error: " << e.what() << "\n";
    return exit_code::runtime_error;
  }
  return exit_code::ok;
}
