// `vktune replay KERNEL`: score a search strategy against stored
// measurements, as Kernel Tuner's simulation mode does: only measured configs
// exist, each evaluation returns its stored time, and the search runs as a
// tune would. Deterministic for a seed.
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "results/import_csv.hpp"
#include "results/import_t4.hpp"
#include "results/store.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "common/json_formats.hpp"
#include "tuner/search/replay.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune::cli {

namespace {

struct ReplayArgs {
  std::string kernel, from, db;
  std::string strategy = kSurrogateStrategy;
  std::size_t budget = 0, runs = 20, batch = 4;
  std::uint64_t seed = 1;
  double stop_within = -1;
  bool transfer = false, json = false, hide_costs = false, no_pipeline_statistics = false;
  std::string shape, time;
};

// A T4 results file (`vktune export --format t4`, Kernel Tuner's), by its
// name: FILE.t4 or FILE.json; anything else is the CSV export.
bool is_t4(const std::string& path) {
  const auto extension = std::filesystem::path(path).extension();
  return extension == ".t4" || extension == ".json";
}

// --shape as the store writes shapes ("1,4096,4096"), or "".
std::string shape_text(const kernels::Kernel& kernel, const std::string& shape) {
  return shape.empty() ? std::string() : kernels::shape_to_string(kernels::parse_shape(shape, kernel.shape_dims().size()));
}

std::vector<results::MeasurementRow> rows_from_db(const std::string& path) {
  auto store = results::Store::open_read_only(path);
  std::map<std::int64_t, results::DeviceIdentity> devices;
  for (auto& [row, id] : store.devices()) devices[row] = id;
  std::vector<results::MeasurementRow> rows;
  for (auto& m : store.all_measurements()) {
    results::MeasurementRow row;
    row.device_row = m.measurement.device_id;
    row.device = devices[row.device_row];
    row.kernel = m.kernel;
    row.config_json = m.config_json;
    row.measurement = m.measurement;
    rows.push_back(std::move(row));
  }
  return rows;
}

// How the strategy walked the space, where that is not its nature: a tune's
// exhaustive search takes a random order when a budget may cut it.
std::string order(const std::string& strategy, const ReplayResult& r) {
  if (strategy != "exhaustive") return "strategy";
  return r.bounded ? "random (the budget may cut the space)" : "enumeration";
}

std::string evaluations(double n) {
  if (!std::isfinite(n)) return "never";
  std::ostringstream out;
  out << std::fixed << std::setprecision(n == std::floor(n) ? 0 : 1) << n << " evaluations";
  return out.str();
}

std::string seconds(double s) {
  if (!std::isfinite(s)) return "never";
  std::ostringstream out;
  out << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return out.str();
}

std::string percent(double share) {
  if (share > 1) return "never";
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << 100 * share << "%";
  return out.str();
}

void run_replay(const ReplayArgs& args, int& result_code) {
  const auto& kernel = kernels::find_kernel(args.kernel);
  if ((args.from.empty()) == (args.db.empty())) {
    throw Error(ErrorKind::usage, "replay needs exactly one of --from FILE (.csv, or .t4/.json) and --db PATH");
  }
  const auto& input = args.from.empty() ? args.db : args.from;
  if (!std::filesystem::is_regular_file(input)) throw Error(ErrorKind::usage, "no such file: " + input);
  // A file that cannot be read (unreadable, not a measurements export, a
  // malformed line or config) is bad input: one line naming it, exit 2.
  std::vector<ReplayRecord> records;
  try {
    const auto rows = !args.from.empty() && is_t4(args.from)
                          ? results::read_measurements_t4(args.from, {kernel.name(), shape_text(kernel, args.shape)})
                      : args.from.empty() ? rows_from_db(args.db)
                                          : results::read_measurements_csv(args.from);
    records = replay_records(kernel.name(), rows);
  } catch (const Error& e) {
    const std::string what = e.what();
    throw Error(ErrorKind::usage, what.find(input) == std::string::npos ? input + ": " + what : what);
  }
  if (records.empty()) {
    throw Error(ErrorKind::usage, (args.from.empty() ? args.db : args.from) + " holds no measurement of " +
                                      kernel.name());
  }
  ReplayOptions options;
  options.strategy = args.strategy;
  if (args.budget) options.budget = args.budget;
  options.runs = args.runs;
  options.seed = args.seed;
  options.batch = args.batch;
  options.transfer = args.transfer;
  options.hide_costs = args.hide_costs;
  options.pipeline_statistics = !args.no_pipeline_statistics;
  if (args.stop_within >= 0) options.stop_within = args.stop_within / 100;
  if (!args.time.empty()) {
    const double seconds = parse_duration(args.time).count();
    if (!(seconds > 0)) throw Error(ErrorKind::usage, "--time " + args.time + ": give a duration above zero");
    options.time_seconds = seconds;
  }
  if (!args.shape.empty()) options.shape = kernels::shape_to_string(kernels::parse_shape(args.shape, kernel.shape_dims().size()));
  const auto report = [&] {
    try {
      return replay(kernel, records, options);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::format) throw;
      throw Error(ErrorKind::usage, input + ": " + e.what());
    }
  }();

  if (args.json) {
    auto out = json_document(kReplayJson);
    out.update({{"kernel", kernel.name()}, {"strategy", args.strategy}, {"runs", args.runs},
                {"seed", args.seed},       {"batch", args.batch},       {"transfer", args.transfer},
                {"time_seconds", options.time_seconds ? nlohmann::json(*options.time_seconds) : nullptr},
                {"hide_costs", args.hide_costs},
                {"pipeline_statistics", !args.no_pipeline_statistics},
                {"shapes", nlohmann::json::array()}, {"skipped", report.skipped}});
    for (const auto& r : report.shapes) {
      auto never = [](double share) { return share > 1 ? nlohmann::json(nullptr) : nlohmann::json(share); };
      auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
      out["shapes"].push_back({{"device", r.device},
                               {"shape", r.shape},
                               {"cache", r.cache_mode},
                               {"space", r.space},
                               {"budget", r.budget},
                               {"best_ns", r.best_ns},
                               {"stale_configs", r.stale},
                               {"baseline_measured", r.baseline_measured},
                               {"baseline_ns", r.baseline_ns ? nlohmann::json(*r.baseline_ns) : nullptr},
                               {"order", order(args.strategy, r)},
                               {"transfer_from", r.transfer_from},
                               {"transfer_seeds", r.seeds},
                               {"median_quality", r.median_quality()},
                               {"p10_quality", r.p10_quality()},
                               {"median_share_within_1pct", never(r.median_share_1pct())},
                               {"p90_share_within_1pct", never(r.p90_share_1pct())},
                               {"median_share_within_3pct", never(r.median_share_3pct())},
                               {"p90_share_within_3pct", never(r.p90_share_3pct())},
                               {"durations", r.durations},
                               {"median_evaluations_within_1pct", finite(r.median_evaluations_1pct())},
                               {"p90_evaluations_within_1pct", finite(r.p90_evaluations_1pct())},
                               {"median_seconds_within_1pct", finite(r.median_seconds_1pct())},
                               {"p90_seconds_within_1pct", finite(r.p90_seconds_1pct())},
                               {"median_seconds_used", median(r.seconds_used)}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "replay of " << kernel.name() << ", strategy " << args.strategy << (args.transfer ? " with transfer" : "")
              << ", " << args.runs << " runs (seed " << args.seed << "), batches of " << args.batch;
    if (options.time_seconds) std::cout << ", " << *options.time_seconds << " s of simulated time each";
    if (args.hide_costs) std::cout << ", costs hidden from the strategy";
    if (args.no_pipeline_statistics) std::cout << ", spilling configs not deferred";
    std::cout << "\n  quality = stored best / best found after the budget; share = part of the space evaluated "
                 "before coming within 1% / 3% of the stored best; seconds = simulated wall-clock time to within 1% "
                 "(stored durations, or " << kAssumedSecondsPerVariant << " s per variant where none were stored)\n";
    for (const auto& s : report.skipped) std::cout << "  skipped: " << s << "\n";
    for (const auto& r : report.shapes) {
      std::cout << std::fixed << std::setprecision(3) << "  " << r.shape << " (" << r.cache_mode << ", " << r.device
                << "): " << r.space << " measured configs, best " << std::setprecision(2) << r.best_ns / 1e3
                << " us, budget " << r.budget;
      if (r.stale) std::cout << ", " << r.stale << " stale configs left out";
      std::cout << (r.baseline_measured ? ", baseline first" : ", baseline not measured");
      if (args.strategy == "exhaustive") std::cout << ", " << order(args.strategy, r);
      if (args.transfer) {
        std::string from;
        for (const auto& f : r.transfer_from) from += (from.empty() ? "" : ", ") + f;
        std::cout << ", " << r.seeds << " seeds" << (from.empty() ? "" : " from " + from);
      }
      std::cout << std::setprecision(3) << "\n    quality median " << r.median_quality() << ", p10 "
                << r.p10_quality() << "; within 1%: median " << percent(r.median_share_1pct()) << ", 9 in 10 by "
                << percent(r.p90_share_1pct()) << "; within 3%: median " << percent(r.median_share_3pct())
                << ", 9 in 10 by " << percent(r.p90_share_3pct()) << "\n    to within 1%: median "
                << evaluations(r.median_evaluations_1pct()) << " in " << seconds(r.median_seconds_1pct())
                << ", 9 in 10 by " << evaluations(r.p90_evaluations_1pct()) << " in " << seconds(r.p90_seconds_1pct())
                << " (durations " << r.durations << "); a run took " << seconds(median(r.seconds_used))
                << " (median)\n";
    }
  }
  result_code = exit_code::ok;
}

}  // namespace

// A budget beyond this is a typo: no stored space is anywhere near it.
constexpr std::uint64_t kMaxReplayBudget = 1'000'000'000;

void add_replay_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("replay", "Score a search strategy by replaying stored measurements "
                                            "(only measured configs exist; deterministic for a seed)");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Scores a strategy against stored measurements: runs it against stored search
measurements (confirmation rows are left out; only measured configs exist,
each evaluation returns its stored result), --runs times with their own
seeds, and prints per shape the median and 10th-percentile quality (stored
best / best found after the budget) and the share of the space evaluated
before the best found came within 1% and 3% of the stored best (median, and
the share by which 9 runs in 10 got there). Deterministic for a seed.

A replay walks a tune's code: the baseline is evaluated and observed first
(and counted) where it was measured, failures are observed with their
status, stale configs are completed as a tune completes them, and the space
is in the kernel's enumeration order (exhaustive takes a random order only
when --budget may cut it, and says so).

--from reads a measurements CSV (vktune export --format csv); --db reads a
database; a file that cannot be read is one line and exit code 2.
--transfer seeds each search as a tune's transfer does, from the other
stored shapes. For example:
    vktune replay attention_decode \
        --from measurements/nvidia-h200/measurements_session5.csv --budget 60

See docs/SPACES_AND_SEARCH.md, "Replay".
)vkt");
  auto args = std::make_shared<ReplayArgs>();
  cmd->add_option("kernel", args->kernel, "Kernel whose measurements to replay")->required();
  cmd->add_option("--from", args->from,
                  "Measurements: a CSV (as `vktune export --format csv` writes), or a T4 results file (FILE.t4 or "
                  "FILE.json: `vktune export --format t4`'s, or another tool's, whose shape --shape gives)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--db", args->db, "Or a results database")->check(database_validator())->check(CLI::ExistingFile);
  cmd->add_option("--shape,-s", args->shape, "Only this shape");
  cmd->add_option("--strategy", args->strategy, "Strategy to score: " + strategy_names())
      ->capture_default_str()
      ->check(strategy_choices());
  cmd->add_option("--budget", args->budget, "Evaluations per run (0 = the whole space)")
      ->transform(count_validator(kMaxReplayBudget));
  cmd->add_option("--runs", args->runs, "Runs per shape, each with its own seed")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", args->seed, "Base seed")
      ->capture_default_str()
      ->transform(count_validator(std::numeric_limits<std::uint64_t>::max()));
  cmd->add_option("--batch", args->batch, "Configs per proposed batch")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_flag("--transfer", args->transfer, "Evaluate the nearest other shapes' best configs first, as a tune does");
  cmd->add_option("--time", args->time,
                  "Simulated wall-clock budget per run (90s, 2m): each evaluation costs its stored durations")
      ->check(duration_validator());
  cmd->add_option("--stop-within", args->stop_within,
                  "End each run once within this many percent of the stored best (what the shares need)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--hide-costs", args->hide_costs,
                "Do not tell the strategy what evaluations cost (the clock still counts it)");
  cmd->add_flag("--no-pipeline-statistics", args->no_pipeline_statistics,
                "Do not defer configs whose stored pipeline statistics say their code spills (as a tune with "
                "--no-pipeline-statistics)");
  cmd->add_flag("--json", args->json, "Machine-readable results");
  cmd->callback([args, &result_code] { run_replay(*args, result_code); });
}

}  // namespace vktune::cli
