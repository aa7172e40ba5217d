// `vktune bench`: Google Benchmark reports of the stored winners and their
// baselines. Runs vktune-bench, installed beside vktune (Google Benchmark is
// a shared library on Debian and stays out of the main binary).
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/spec/spec_arguments.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"

namespace vktune::cli {

namespace {

struct BenchArgs {
  std::vector<std::string> kernels;
  std::uint32_t device = 0;
  std::string db;
  std::string cache = to_string(CacheMode::cold);  // --cache, parsed where it is used
  std::optional<double> max_drift;                // percent
};

std::filesystem::path bench_program() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto path = (ec ? std::filesystem::path(".") : self.parent_path()) / "vktune-bench";
  if (!std::filesystem::exists(path)) {
    throw Error(ErrorKind::io, "vktune-bench not found at " + path.string() +
                                   " (build it with -DVKTUNE_BUILD_BENCH=ON; it is installed beside vktune)");
  }
  return path;
}

}  // namespace

void add_bench_command(CLI::App& root, int& result_code, const std::vector<std::string>& benchmark_flags) {
  auto* cmd = root.add_subcommand(
      "bench", "Google Benchmark report of the stored winners and baselines (flags after -- go to Google Benchmark)");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
A Google Benchmark report of each stored winner (found for this device with
the runtime library's lookup: the same GPU, or another of the same model,
architecture or vendor whose contract this device can run) and its baseline:
GPU time per dispatch, bytes_per_second, items_per_second = FLOP/s, pct_peak;
a winner's stored_us and vs_stored, the stored time and this run's over it.

--max-drift PCT exits 1 when any winner runs more than PCT percent off its
stored time (either way: 2x slower and 2x faster are both 100% off) or could
not be measured, naming each on stderr: run it on a GPU of a table's model
before committing the table (import it into an empty database, then
`vktune bench --db DB --max-drift 10`).

An iteration is one submission of 15 timed samples, 10 iterations unless
--iterations says otherwise. Arguments after -- go to Google Benchmark, e.g.
    vktune bench matmul_q4k --device 0 -- \
        --benchmark_format=json --benchmark_out=bench.json

See docs/RESULTS_DATABASE.md.
)vkt");
  auto args = std::make_shared<BenchArgs>();
  cmd->add_option("kernels", args->kernels, "Kernels to benchmark (default: every kernel with winners)");
  add_device_option(*cmd, args->device, "Vulkan device index");
  cmd->add_option("--db", args->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator())
      ->check(CLI::ExistingFile);
  add_cache_option(*cmd, args->cache, "Which winners: those tuned with cold or with hot caches");
  cmd->add_option("--max-drift", args->max_drift,
                  "Exit 1 when a winner's time here is more than PCT percent off its stored time, or it could not "
                  "be measured")
      ->check(CLI::Range(0.0, 1e6));
  cmd->callback([args, &result_code, &benchmark_flags] {
    const auto program = bench_program().string();
    std::vector<std::string> argv_text{program, "--device", std::to_string(args->device), "--cache", args->cache};
    if (!args->db.empty()) argv_text.insert(argv_text.end(), {"--db", args->db});
    if (args->max_drift) argv_text.insert(argv_text.end(), {"--max-drift", std::to_string(*args->max_drift)});
    for (const auto& k : args->kernels) {
      const auto spec = kernels::spec::spec_path_of(k);  // vktune-bench loads a spec kernel itself
      argv_text.insert(argv_text.end(), {"--kernel", spec.empty() ? k : spec});
    }
    argv_text.insert(argv_text.end(), benchmark_flags.begin(), benchmark_flags.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    result_code = exit_code::runtime_error;
    throw Error(ErrorKind::io, "could not run " + program);
  });
}

}  // namespace vktune::cli
