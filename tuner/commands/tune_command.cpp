// `vktune KERNEL`: tune a kernel on a device, store every measurement, and
// show the best variants per shape.
#include <algorithm>
#include <chrono>
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
#include "tuner/ceilings.hpp"
#include "tuner/device_lock.hpp"
#include "tuner/interrupt.hpp"
#include "tuner/commands/commands.hpp"
#include "tuner/commands/options.hpp"
#include "tuner/report.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/session.hpp"

namespace vktune::cli {

namespace {

struct TuneArgs {
  std::uint32_t device = 0;
  std::vector<std::string> shapes;
  std::string strategy;
  std::size_t budget = 0;
  std::string time;
  std::string target;
  double within = 0;
  std::size_t converge = 0;
  bool no_transfer = false;
  std::size_t batch = 4;
  std::string db;
  std::string cache = "cold";
  bool json = false;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string templates;
  std::size_t top = 5;
  bool validation = false;
  std::vector<std::string> only;
  std::string space = "pruned";
  bool shared_device = false;
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

void run_tune(const kernels::Kernel& kernel, TuneArgs args, int& result_code) {
  std::optional<double> target_ns;
  if (!args.target.empty()) target_ns = parse_duration(args.target).count() * 1e9;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (!args.time.empty()) {
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(parse_duration(args.time));
  }
  const auto only = parse_only(args.only);  // bad text fails before the device is opened
  auto shapes = parse_shapes(kernel, args.shapes);
  const bool user_shapes = !shapes.empty();
  if (!user_shapes) shapes = kernel.default_shapes();
  auto templates = TemplateLibrary::select(args.templates.empty() ? std::nullopt : std::optional(args.templates));

  InterruptGuard interrupt;  // from here on, SIGINT/SIGTERM stop between variants
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
    for (const auto& s : shapes) {
      const auto need = kernel.device_bytes(s);
      if (need > info.device_local_bytes() / 2 || need > info.max_storage_buffer_range * 4ull) {
        throw Error(ErrorKind::usage, "shape " + kernels::shape_to_string(s) + " needs " + std::to_string(need >> 20) +
                                          " MiB, too large for " + info.name + "'s " +
                                          std::to_string(info.device_local_bytes() >> 20) + " MiB of device memory");
      }
    }
  }
  const auto only_notes = check_only(kernel, shapes, only);  // names and values, before the database
  if (!args.seed_given) args.seed = std::random_device{}();

  std::unique_ptr<DeviceLock> device_lock;
  if (!args.shared_device) {
    device_lock = std::make_unique<DeviceLock>(lock_key, device_name, std::cerr,
                                               [] { return InterruptGuard::reason().has_value(); });
    if (!device_lock->held()) {  // interrupted while waiting: nothing was measured
      std::cerr << "vktune: " << *InterruptGuard::reason() << " while waiting for the device; nothing was tuned\n";
      result_code = InterruptGuard::exit_code();
      return;
    }
  }

  auto store = open_store(args.db);
  Progress progress(stderr_is_terminal(), args.json);
  if (note && !args.json) std::cerr << *note << "\n";
  for (const auto& line : only_notes) std::cerr << line << "\n";
  TuneSession session(instance, args.device, &store, templates, progress);

  // Ceilings are measured once per device and kept.
  std::optional<Ceilings> ceilings;
  const auto row = *session.device_row();
  if (auto read = store.ceiling(row, kCeilingRead), fma = store.ceiling(row, kCeilingFma); read && fma) {
    ceilings = Ceilings{*read, *fma};
  } else {
    if (!args.json) std::cerr << "measuring device ceilings (once per device)...\n";
    ceilings = measure_ceilings(session.device(), templates);
    store_ceilings(store, row, *ceilings);
  }
  if (auto floor = store.ceiling(row, kCeilingDispatchFloor)) {
    ceilings->dispatch_floor_ns = *floor;
  } else {  // a database from before the floor was measured: add it
    ceilings->dispatch_floor_ns = measure_dispatch_floor(session.device(), templates);
    store.put_ceiling(row, kCeilingDispatchFloor, ceilings->dispatch_floor_ns, "ns");
  }

  TuneOptions options;
  options.strategy = args.strategy;
  if (args.budget) options.budget = args.budget;
  options.target_ns = target_ns;
  options.target_within = args.within / 100;
  if (args.converge) options.converge = args.converge;
  options.transfer = !args.no_transfer;
  options.batch_size = args.batch;
  options.deadline = deadline;
  options.seed = args.seed;
  options.cache_mode = args.cache;
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
                             {"dependent_dispatch_us", ceilings->dispatch_floor_ns / 1e3}}},
                           {"shapes", nlohmann::json::array()}};
  if (note) report["note"] = *note;
  if (!args.json) {
    std::cout << kernel.name() << " on " << session.device().info().name << " (driver "
              << session.device().info().driver_version << "), cache " << args.cache << ", ceilings "
              << static_cast<long>(ceilings->read_gbps) << " GB/s read, " << static_cast<long>(ceilings->fp32_gflops)
              << " GFLOP/s fp32, " << std::fixed << std::setprecision(1) << ceilings->dispatch_floor_ns / 1e3
              << std::defaultfloat << " us per dependent dispatch; results in " << store.path().string() << "\n";
  }
  bool every_shape_validated = true;
  std::size_t shapes_done = 0;
  for (const auto& shape : shapes) {
    if (InterruptGuard::reason()) break;
    auto result = session.tune(kernel, shape, options);
    if (!InterruptGuard::reason()) ++shapes_done;
    if (!result.winner) every_shape_validated = false;
    if (args.json) {
      report["shapes"].push_back(shape_report_json(kernel, result, ceilings));
    } else {
      print_shape_report(std::cout, kernel, result, ceilings, args.top);
      std::cout.flush();
    }
  }
  if (const auto why = InterruptGuard::reason()) {
    report["interrupted"] = *why;
    if (args.json) std::cout << report.dump(2) << "\n";
    std::cout.flush();
    store.checkpoint();  // the .db file alone now holds every measurement
    std::cerr << "vktune: " << *why << " after " << shapes_done << " of " << shapes.size()
              << " shapes; every measurement so far is stored in " << store.path().string()
              << ": run the same command again to resume\n";
    result_code = InterruptGuard::exit_code();
    return;
  }
  if (args.json) std::cout << report.dump(2) << "\n";
  result_code = every_shape_validated ? exit_code::ok : exit_code::failure;
}

}  // namespace

// Counts of variants or rows beyond this are typos, not plans.
constexpr std::uint64_t kMaxCount = 1'000'000'000;

void add_tune_commands(CLI::App& root, int& result_code) {
  for (const auto* kernel : kernels::all_kernels()) {
    auto* cmd = root.add_subcommand(kernel->name(), "Tune " + kernel->name() + ": " + kernel->description());
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
    cmd->add_option("--time", args->time, "Stop starting variants after this long, e.g. 90s, 5m (for the whole run)")
        ->check(duration_validator());
    cmd->add_option("--target", args->target, "Stop a shape once a variant is this fast (e.g. 13.5us, 0.2ms)")
        ->check(duration_validator());
    cmd->add_option("--within", args->within, "With --target: stop within this many percent of it")
        ->check(CLI::Range(0.0, 1000.0));
    cmd->add_option("--converge", args->converge, "Stop a shape after N variants in a row without a faster one")
        ->transform(count_validator(kMaxCount));
    cmd->add_flag("--no-transfer", args->no_transfer,
                  "Do not evaluate the best configs of the nearest tuned shapes first");
    cmd->add_option("--batch", args->batch, "Configs the strategy proposes at a time (the next batch compiles "
                                            "while this one is timed)")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    cmd->add_option("--db", args->db, "SQLite database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)");
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
