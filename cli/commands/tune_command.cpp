// `vktune KERNEL`: tune a kernel on a device, store every measurement, and
// show the best variants per shape.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "engine/device_problem.hpp"
#include "engine/ceilings.hpp"
#include "cli/device_lock.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/report.hpp"
#include "tuner/search/stop_condition.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/session.hpp"
#include "tuner/time_share.hpp"

namespace vktune::cli {

namespace {

struct TuneArgs {
  std::uint32_t device = 0;
  IsolationArgs isolation;
  std::vector<std::string> shapes;
  std::string strategy;
  std::size_t budget = 0;
  std::string time;
  std::string target;
  double within = 0;
  std::size_t converge = 0;
  bool no_transfer = false;
  bool no_pipeline_statistics = false;
  std::size_t batch = 4;
  std::string db;
  std::string cache = to_string(CacheMode::cold);  // --cache, parsed where it is used
  bool json = false;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string templates;
  std::size_t top = 5;
  bool validation = false;
  std::vector<std::string> only;
  std::string space = "pruned";
  bool shared_device = false;
  bool exhaustive = false;
};

// "NAME=V1,V2" (repeatable) into a map; throws Error(usage) on bad text.
std::map<std::string, std::vector<int>> parse_only(const std::vector<std::string>& items) {
  std::map<std::string, std::vector<int>> only;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw Error(ErrorKind::usage, "--only takes NAME=VALUE[,VALUE...], not '" + item + "'");
    }
    auto& values = only[item.substr(0, eq)];
    std::size_t start = eq + 1;
    while (start <= item.size()) {
      const auto comma = std::min(item.find(',', start), item.size());
      const auto text = item.substr(start, comma - start);
      std::size_t used = 0;
      int v = 0;
      try {
        v = std::stoi(text, &used);
      } catch (const std::exception&) {
        used = std::string::npos;
      }
      if (text.empty() || used != text.size()) {
        throw Error(ErrorKind::usage, "--only " + item + ": '" + text + "' is not an integer");
      }
      values.push_back(v);
      start = comma + 1;
    }
  }
  return only;
}

// On a CPU device (lavapipe) the full default set would take far too long:
// only shapes of modest work, with a small budget, unless the user says
// otherwise. Returns a note for the output, or "".
std::string cpu_defaults(const kernels::Kernel& kernel, std::vector<kernels::Shape>& shapes, TuneArgs& args) {
  std::vector<kernels::Shape> light;
  for (const auto& s : shapes)
    if (kernel.metrics(s).flops <= 2.0e8) light.push_back(s);
  if (light.empty()) light = kernel.check_shapes();
  shapes = light;
  std::string note = "note: device is a CPU implementation, so only the default shapes of under 0.2 GFLOP are tuned";
  if (args.budget == 0) {
    args.budget = 16;
    note += ", with a budget of 16 variants per shape";
  }
  return note + " (give --shape/--budget to override)";
}

// A tune with nothing to end its shapes (no --time, --budget, --converge or
// --target, no --exhaustive, no --strategy exhaustive; on a CPU device the
// default shapes come with a budget already) would search every config of
// every shape (on an H200 the six default shapes of matmul_q4k had not
// finished after 300 s): each shape instead stops when its search has
// converged, or at a cap.
constexpr std::size_t kDefaultConverge = 40;
constexpr std::size_t kDefaultShapeCap = 300;

bool unbounded(const TuneArgs& args) {
  return args.budget == 0 && args.time.empty() && args.converge == 0 && args.target.empty() && !args.exhaustive &&
         args.strategy != "exhaustive";
}

// The rule the bounded default applies, and the longest the run can take
// at the pace variants had on this device in earlier runs (the median of
// the stored rows' compile, pipeline, validation, warm-up and timing), for
// the header.
std::string bounded_default_note(const results::Store& store, std::int64_t device_row, std::size_t shapes) {
  char text[512];
  std::snprintf(text, sizeof text,
                "bounded by default: each shape stops after %zu variants in a row without one over %.0f%% faster "
                "than its best, or at %zu variants (--exhaustive searches every config; --time, --budget or "
                "--converge set your own bound); at most %zu shape%s x %zu variants",
                kDefaultConverge, kConvergenceGain * 100, kDefaultShapeCap, shapes, shapes == 1 ? "" : "s",
                kDefaultShapeCap + 1);
  std::string note = text;
  std::vector<double> seconds;
  for (const auto& m : store.all_measurements()) {
    if (m.measurement.device_id == device_row && m.measurement.durations.total_ms() > 0) {
      seconds.push_back(m.measurement.durations.total_ms() / 1e3);
    }
  }
  if (seconds.empty()) return note + "; no earlier run on this device to estimate the time from (the live line's ETA "
                                     "follows the run)";
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double per_variant = seconds[seconds.size() / 2];
  std::snprintf(text, sizeof text, ", at most about %.0f min at the %.2f s a variant took on this device before",
                per_variant * static_cast<double>(shapes * (kDefaultShapeCap + 1)) / 60, per_variant);
  return note + text;
}

// "1,64,64: 12 variants (2 failed, 3 from an earlier run), best 12.30 us":
// what a shape got through, for the summary of an interrupted run.
std::string measured_summary(const ShapeResult& r) {
  std::size_t resumed = 0;
  for (const auto& o : r.outcomes) resumed += o.resumed;
  std::string text = kernels::shape_to_string(r.shape) + ": " + std::to_string(r.outcomes.size()) + " variant" +
                     (r.outcomes.size() == 1 ? "" : "s") + " (" + std::to_string(r.failures()) + " failed";
  if (resumed) text += ", " + std::to_string(resumed) + " from an earlier run";
  text += ")";
  if (r.winner) {
    char best[64];
    std::snprintf(best, sizeof best, ", best %.2f us", r.outcomes[*r.winner].timing.median / 1e3);
    text += best;
  }
  return text;
}

void run_tune(const kernels::Kernel& kernel, TuneArgs args, int& result_code) {
  std::optional<double> target_ns;
  if (!args.target.empty()) target_ns = parse_duration(args.target).count() * 1e9;
  // --time is one budget for the whole run, counted from here: the device's
  // ceilings (when they are measured) and every shape draw from it.
  const auto run_started = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  double time_budget_seconds = 0;
  if (!args.time.empty()) {
    const auto budget = parse_duration(args.time);
    time_budget_seconds = budget.count();
    deadline = run_started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget);
  }
  const auto only = parse_only(args.only);  // bad text fails before the device is opened
  auto shapes = parse_shapes(kernel, args.shapes);
  const bool user_shapes = !shapes.empty();
  if (!user_shapes) shapes = kernel.default_shapes();
  auto templates = TemplateLibrary::select(args.templates.empty() ? std::nullopt : std::optional(args.templates));

  InterruptGuard interrupt;  // from here on, SIGINT/SIGTERM stop between variants
  Progress progress(stderr_is_terminal(), false);  // on stderr, --json or not
  progress.set_stopping([] { return InterruptGuard::reason(); });
  progress.phase("opening device " + std::to_string(args.device));
  vk::Instance instance({.validation = args.validation});
  // Check the device and the shapes' memory before the database is touched.
  std::optional<std::string> note;
  std::string lock_key, device_name;
  {
    vk::Device probe(instance, args.device);
    const auto& info = probe.info();
    lock_key = device_lock_key(info);
    device_name = info.name;
    if (info.is_cpu() && !user_shapes) note = cpu_defaults(kernel, shapes, args);
    for (const auto& s : shapes) require_device_fits(kernel, s, info);
  }
  const auto only_notes = check_only(kernel, shapes, only);  // names and values, before the database
  if (!args.seed_given) args.seed = std::random_device{}();

  std::unique_ptr<DeviceLock> device_lock;
  progress.end_shape();  // the lock may print that it waits
  if (!args.shared_device) {
    device_lock = std::make_unique<DeviceLock>(lock_key, device_name, std::cerr,
                                               [] { return InterruptGuard::reason().has_value(); });
    if (!device_lock->held()) {  // interrupted while waiting: nothing was measured
      std::cerr << "vktune: " << *InterruptGuard::reason() << " while waiting for the device; nothing was tuned\n";
      result_code = InterruptGuard::exit_code();
      return;
    }
  }

  progress.phase("opening the database and device " + std::to_string(args.device));
  auto store = open_store(args.db);
  if (note) progress.message(*note);
  for (const auto& line : only_notes) {
    if (args.json) std::cerr << line << "\n";  // the report has no place for them
    else progress.message(line);
  }
  TuneSession session(instance, args.device, &store, templates, progress);
  WorkerPool workers(isolation_settings(args.device, session.device().info().is_cpu(),
                                        args.isolation.compile_timeout, args.isolation.jobs));
  session.isolate(&workers);
  std::optional<std::string> bound_note;
  if (unbounded(args)) {
    bound_note = bounded_default_note(store, *session.device_row(), shapes.size());
    args.converge = kDefaultConverge;
    args.budget = kDefaultShapeCap;
  }

  // Ceilings are measured once per device and kept.
  const auto measuring = std::chrono::steady_clock::now();
  const std::optional<Ceilings> ceilings = stored_or_measured_ceilings(
      session.device(), store, *session.device_row(),
      [&](const std::string& step) { progress.phase("measuring device ceilings (once per device): " + step); });
  // Spent measuring them in this run.
  const double ceiling_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - measuring).count();
  progress.plan_run(shapes.size(), deadline);

  TuneOptions options;
  options.strategy = args.strategy;
  if (args.budget) options.budget = args.budget;
  options.target_ns = target_ns;
  options.target_within = args.within / 100;
  if (args.converge) options.converge = args.converge;
  options.transfer = !args.no_transfer;
  options.pipeline_statistics = !args.no_pipeline_statistics;
  options.batch_size = args.batch;
  options.deadline = deadline;
  options.seed = args.seed;
  options.cache_mode = parse_cache_mode(args.cache);
  options.only = only;
  options.space = parse_space_scope(args.space);
  options.interrupted = [] { return InterruptGuard::reason(); };

  nlohmann::json report = {{"format", "vktune-tune"},
                           {"version", kTuneJsonVersion},
                           {"device", session.device().info().name},
                           {"driver", session.device().info().driver_version},
                           {"database", store.path().string()},
                           {"seed", args.seed},
                           {"cache", args.cache},
                           {"ceilings",
                            {{"read_gbps", ceilings->read_gbps},
                             {"fp32_gflops", ceilings->fp32_gflops},
                             {"dependent_dispatch_us", ceilings->dispatch_floor_ns / 1e3},
                             {"tensor_fp16_gflops", ceilings->tensor_gflops},
                             {"tensor_fp16_shared_gflops", ceilings->tensor_shared_gflops}}},
                           {"shapes", nlohmann::json::array()}};
  if (note) report["note"] = *note;
  report["isolation"] = workers.describe();
  const double used_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count();
  report["time_budget"] = nullptr;
  if (deadline) {
    report["time_budget"] = {{"seconds", time_budget_seconds},
                             {"applies_to", "the whole run: every shape and the device-ceiling measurement"},
                             {"used_before_first_shape_seconds", used_seconds},
                             {"ceilings_seconds", ceiling_seconds}};
  }
  progress.end_shape();  // the header goes to stdout on a clean line
  if (!args.json) {
    std::cout << kernel.name() << " on " << session.device().info().name << " (driver "
              << session.device().info().driver_version << "), cache " << args.cache << ", ceilings "
              << static_cast<long>(ceilings->read_gbps) << " GB/s read, " << static_cast<long>(ceilings->fp32_gflops)
              << " GFLOP/s fp32, "
              << (ceilings->tensor_gflops > 0 ? std::to_string(static_cast<long>(ceilings->tensor_gflops)) +
                                                    " GFLOP/s fp16 tensor cores (" +
                                                    std::to_string(static_cast<long>(ceilings->tensor_shared_gflops)) +
                                                    " from shared memory), "
                                              : std::string())
              << std::fixed << std::setprecision(1) << ceilings->dispatch_floor_ns / 1e3 << std::defaultfloat
              << " us per dependent dispatch; results in " << store.path().string() << "\n"
              << workers.describe() << "\n";
    if (bound_note) std::cout << *bound_note << "\n";
    if (deadline) {
      std::cout << "time budget " << args.time << " (" << std::fixed << std::setprecision(0) << time_budget_seconds
                << " s) for the whole run"
                << (shapes.size() > 1 ? ", shared by its " + std::to_string(shapes.size()) +
                                            " shapes (each search an equal share of what is left, less the setups and tails still to come "
                                            "as measured so far)"
                                      : std::string())
                << "; " << std::setprecision(1) << used_seconds << " s used before the first shape"
                << std::defaultfloat;
      if (ceiling_seconds >= 0.05) {
        char text[64];
        std::snprintf(text, sizeof text, ", %.1f s of it measuring the device's ceilings", ceiling_seconds);
        std::cout << text;
      }
      std::cout << "\n";
    }
    std::cout.flush();
  }
  bool every_shape_validated = true;
  std::size_t shapes_done = 0;
  std::vector<std::string> baseline_only;  // shapes whose share of --time ran out after the baseline
  std::vector<std::string> measured_so_far;  // per shape started, for an interrupted run's summary
  std::optional<BudgetShares> shares;
  if (deadline) shares.emplace(*deadline, shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (InterruptGuard::reason()) break;
    const auto& shape = shapes[i];
    auto shape_options = options;
    if (shares) {
      shares->shape_started(std::chrono::steady_clock::now());
      shape_options.search_deadline = [&shares](auto search_start) { return shares->search_deadline_at(search_start); };
    }
    auto result = session.tune(kernel, shape, shape_options);
    if (shares) shares->shape_ended(std::chrono::steady_clock::now(), result.search_seconds);
    if (deadline && result.stop_reason == kDeadlineReason &&
        std::none_of(result.outcomes.begin(), result.outcomes.end(),
                     [](const Outcome& o) { return !o.is_baseline && !o.resumed; })) {
      baseline_only.push_back(kernels::shape_to_string(shape));
    }
    if (!InterruptGuard::reason()) ++shapes_done;
    measured_so_far.push_back(measured_summary(result));
    if (!result.winner) every_shape_validated = false;
    if (args.json) {
      report["shapes"].push_back(shape_report_json(kernel, result, ceilings));
    } else {
      print_shape_report(std::cout, kernel, result, ceilings, args.top);
      std::cout.flush();
    }
  }
  if (const auto why = InterruptGuard::reason()) {
    progress.hide();  // the summary below starts on a clean line
    report["interrupted"] = *why;
    if (args.json) std::cout << report.dump(2) << "\n";
    std::cout.flush();
    store.checkpoint();  // the .db file alone now holds every measurement
    // The shape the signal stopped partway is listed, and not counted as done.
    const bool partway = measured_so_far.size() > shapes_done;
    if (partway) measured_so_far.back() += " (stopped partway)";
    std::cerr << "vktune: " << *why << " after " << shapes_done << " of " << shapes.size()
              << (shapes.size() == 1 ? " shape" : " shapes") << (partway ? " and part of one more" : "");
    if (!measured_so_far.empty()) {
      std::cerr << "; measured so far:";
      for (std::size_t i = 0; i < measured_so_far.size(); ++i) std::cerr << (i ? "; " : " ") << measured_so_far[i];
    }
    std::cerr << "\nvktune: every measurement so far is stored in " << store.path().string()
              << ": run the same command again to resume\n";
    result_code = InterruptGuard::exit_code();
    return;
  }
  if (args.json) std::cout << report.dump(2) << "\n";
  // Said on stderr, so that --json's stdout stays one document: a budget
  // too short for its shapes' setups and tails otherwise reads as a search
  // that found nothing better than the baseline.
  if (!baseline_only.empty()) {
    std::cout.flush();
    std::cerr << "vktune: --time " << args.time << " left " << baseline_only.size() << " of " << shapes.size()
              << " shapes no time past their baseline (";
    for (std::size_t i = 0; i < baseline_only.size(); ++i) std::cerr << (i ? " " : "") << baseline_only[i];
    std::cerr << "): give a longer --time, or tune fewer shapes per run\n";
  }
  result_code = every_shape_validated ? exit_code::ok : exit_code::failure;
}

}  // namespace

// Counts of variants or rows beyond this are typos, not plans.
constexpr std::uint64_t kMaxCount = 1'000'000'000;

void add_tune_commands(CLI::App& root, int& result_code) {
  for (const auto* kernel : kernels::all_kernels()) {
    auto* cmd = root.add_subcommand(kernel->name(), "Tune " + kernel->name() + ": " + kernel->description());
    // The reference text (the man page carries it too).
    cmd->footer(R"vkt(
Tunes KERNEL (a kernel name or a spec file) on device N: proposes configs,
compiles, validates and times each, and stores every measurement and the
winner.

On stderr, one live line (on a terminal: redrawn in place, clipped to its
width; otherwise a plain line every few seconds) with the phase and its
counts: opening the device, measuring its ceilings, enumerating, compiling,
validating and timing variant n with done/planned beside it, confirming the
finalists n of m, the final check of the winner. Its ETA covers every shape of
the run, from the rates measured in it (variants resumed from the store count
as done, not as fast). When the confirmation pass re-times the finalists, a
line says how that moved the search's best (the live line's "best") and which
variant won.

--time is one budget for the whole run, counted from its start: every shape
and the device-ceiling measurement draw from it. Each shape's search gets an
equal share of what is left when it starts, less the setups (inputs, CPU
reference) and tails (re-timing the finalists, the final check) still to come,
estimated from those measured so far, so that they are not the last shape's
loss; what a shape leaves unused (its space exhausted or its target met) goes
to the later ones. Shapes the budget left no time past their baseline are
named in one line on stderr at the end; the header says so and how much went
before the first shape.

Ctrl-C (or SIGTERM) stops after the variant in flight, ends the live line, and
prints what each shape measured and the line to resume (exit 130 or 143).

Then, per shape: the search (strategy, seed, transfer seeds, why it stopped,
variants per second); where the time went (seconds of compile, pipeline
creation, validation, warm-up and timing, summed over the variants measured,
for the search and the confirmation; and the wall time of the setup before the
search and of the final check); the best variants (median us, p10-p90 spread,
GB/s, GFLOP/s, % of the device's measured ceiling); the winner's speedup over
the hand-picked baseline; where the winner runs several dispatches (a
quantized prefill's dequantizing stage, a split's merge), each one's time;
and each parameter's importance.

--only searches the configs whose parameter takes one of the values (the
baseline still runs). --json prints the same as {"format": "vktune-tune",
"version": 2, ...} (each shape's time_spent and winner_stages; time_budget:
null, or with --time its seconds, applies_to, used_before_first_shape_seconds
and ceilings_seconds; output without a version is version 1).

See docs/SPACES_AND_SEARCH.md (strategies, stop conditions, transfer,
confirmation) and docs/TIMING_AND_NUMERICS.md.
)vkt");
    auto args = std::make_shared<TuneArgs>();
    add_device_option(*cmd, args->device, "Vulkan device index (see `vktune devices`)");
    std::string dims;
    for (const auto& d : kernel->shape_dims()) dims += (dims.empty() ? "" : ",") + d;
    cmd->add_option("--shape,-s", args->shapes, "Shape " + dims + " to tune (repeatable; default: the kernel's shapes)");
    cmd->add_option("--strategy", args->strategy,
                    "Search strategy: " + strategy_names() +
                        " (default: model when a budget, time, target or convergence bounds the search or the space "
                        "holds over " + std::to_string(kExhaustiveUpTo) + " configs, else exhaustive)")
        ->check(strategy_choices());
    cmd->add_option("--budget", args->budget, "At most N variants per shape besides the baseline (0 = no limit)")
        ->transform(count_validator(kMaxCount));
    cmd->add_option("--time", args->time, "Stop starting variants after this long, e.g. 90s, 5m: one budget for the whole run, shared by "
                    "all its shapes and counted from the start (measuring the device's ceilings included)")
        ->check(duration_validator());
    cmd->add_option("--target", args->target, "Stop a shape once a variant is this fast (e.g. 13.5us, 0.2ms)")
        ->check(duration_validator());
    cmd->add_option("--within", args->within, "With --target: stop within this many percent of it")
        ->check(CLI::Range(0.0, 1000.0));
    cmd->add_option("--converge", args->converge,
                    "Stop a shape after N variants in a row without one over " +
                        std::to_string(static_cast<int>(kConvergenceGain * 100 + 0.5)) + "% faster than the best")
        ->transform(count_validator(kMaxCount));
    cmd->add_flag("--exhaustive", args->exhaustive,
                  "With no other bound: search every config of every shape (by default each shape stops when its "
                  "search has converged)");
    cmd->add_flag("--no-transfer", args->no_transfer,
                  "Do not evaluate the best configs of the nearest tuned shapes first");
    cmd->add_flag("--no-pipeline-statistics", args->no_pipeline_statistics,
                  "Do not read the driver's pipeline statistics (where it offers "
                  "VK_KHR_pipeline_executable_properties): configs whose code spills are then measured in the "
                  "strategy's order, not last");
    add_isolation_options(*cmd, args->isolation);
    cmd->add_option("--batch", args->batch, "Configs the strategy proposes at a time (the next batch compiles "
                                            "while this one is timed)")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    cmd->add_option("--db", args->db, "SQLite database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
        ->check(database_validator());
    add_cache_option(*cmd, args->cache, "cold: rotate weight copies larger than the GPU caches; hot: reuse one");
    cmd->add_flag("--json", args->json, "Print machine-readable results on stdout (no progress)");
    cmd->add_option("--seed", args->seed, "Seed for inputs and the random strategy (default: fresh each run)")
        ->transform(count_validator(std::numeric_limits<std::uint64_t>::max()))
        ->each([args](const std::string&) { args->seed_given = true; });
    cmd->add_option("--templates", args->templates, "Read templates from DIR instead of the built-in ones")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--top", args->top, "Rows per shape in the table")
        ->capture_default_str()
        ->transform(count_validator(kMaxCount));
    cmd->add_flag("--validation", args->validation, "Enable Vulkan validation layers if installed");
    cmd->add_option("--only", args->only,
                    "Search only configs with parameter NAME among the values, e.g. --only X_QUANT=1 or "
                    "--only WG_SIZE=64,128 (repeatable; see `vktune list`)");
    cmd->add_flag("--shared-device", args->shared_device,
                  "Tune even while another vktune tunes this device (the two skew each other's timings)");
    add_space_option(*cmd, args->space);
    cmd->callback([kernel, args, &result_code] { run_tune(*kernel, *args, result_code); });
  }
}

}  // namespace vktune::cli
