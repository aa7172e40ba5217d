// vktune-bench: Google Benchmark over the stored winners and baselines.
//   vktune-bench [--device N] [--db PATH] [--kernel NAME|SPEC.json]... [--cache cold|hot] [--iterations N]
//                [Google Benchmark flags: --benchmark_filter=, --benchmark_format=json, ...]
// Usually run through `vktune bench`.
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bench/kernel_benchmarks.hpp"
#include "common/error.hpp"
#include "kernels/spec/spec_arguments.hpp"

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
        const auto kernel = value("--kernel");
        // A kernel spec file (as `vktune bench my_kernel.json` passes it).
        const bool spec = kernel.size() > 5 && kernel.compare(kernel.size() - 5, 5, ".json") == 0;
        options.kernels.push_back(spec ? kernels::spec::register_spec_file(kernel) : kernel);
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
    if (bench::register_kernel_benchmarks(options) == 0) {
      std::cerr << "vktune-bench: error: no stored winners to benchmark for this device and cache mode\n";
      return exit_code::failure;
    }
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
