#include "bench/kernel_benchmarks.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "results/browse.hpp"
#include "results/store.hpp"
#include "engine/ceilings.hpp"
#include "engine/device_problem.hpp"
#include "engine/device_reference.hpp"
#include "engine/evaluator.hpp"
#include "engine/device_identity.hpp"
#include "engine/stale_config.hpp"
#include "engine/template_library.hpp"
#include "engine/runtime_device.hpp"
#include "engine/variant.hpp"
#include "tuner/device_baseline.hpp"

namespace vktune::bench {

namespace {

// One problem per (kernel, shape), uploaded on first use.
struct ProblemOnDevice {
  kernels::Problem problem;
  std::unique_ptr<DeviceProblem> on_device;
};

// What the benchmarks share. Every registered lambda holds it, so it lives
// until Google Benchmark has run them all.
struct Context {
  std::unique_ptr<vk::Instance> instance;
  std::unique_ptr<vk::Device> device;
  TemplateLibrary templates = TemplateLibrary::embedded();
  Ceilings ceilings;
  CacheMode cache_mode = CacheMode::cold;
  std::map<std::string, ProblemOnDevice> problems;  // by "kernel/shape"
  std::shared_ptr<std::vector<WinnerTime>> winners = std::make_shared<std::vector<WinnerTime>>();
};

std::string benchmark_shape_name(const kernels::Kernel& kernel, const kernels::Shape& shape) {
  std::string name;
  const auto dims = kernel.shape_dims();
  for (std::size_t i = 0; i < shape.size(); ++i) name += (i ? "_" : "") + dims[i] + std::to_string(shape[i]);
  return name;
}

// stored_ns: the winner's median as the table stores it (0 for a baseline):
// reported beside this device's time, so a table tuned on one GPU can be
// checked on another (does it reproduce?).
void run_variant(benchmark::State& state, Context& ctx, const kernels::Kernel& kernel, const kernels::Shape& shape,
                 const kernels::Config& config, double stored_ns) {
  const auto key = kernel.name() + "/" + kernels::shape_to_string(shape);
  // A winner (stored_ns > 0) is recorded measured or not, for --max-drift.
  const auto skip = [&](const std::string& why) {
    if (stored_ns > 0) ctx.winners->push_back({kernel.name() + " " + kernels::shape_to_string(shape), stored_ns, 0, why});
    state.SkipWithError(why.c_str());
  };
  auto& entry = ctx.problems[key];
  if (!entry.on_device) {
    entry.problem = kernel.make_problem(shape, 1);
    std::uint64_t weights = 0;
    for (const auto& b : entry.problem.buffers)
      if (b.is_weights) weights += b.bytes.size();
    const auto copies =
        ctx.cache_mode == CacheMode::cold ? cold_cache_copies(weights, ctx.device->info().device_local_bytes()) : 1u;
    entry.on_device = std::make_unique<DeviceProblem>(*ctx.device, entry.problem, copies);
    try {
      complete_reference(*ctx.device, kernel, entry.problem, *entry.on_device, ctx.templates);
    } catch (const Error& e) {
      entry.on_device.reset();
      skip(e.what());
      return;
    }
  }
  auto variant = describe_variant(kernel, config, shape, ctx.templates);
  std::unique_ptr<VariantRunner> runner;
  try {
    compile_variant(variant, ctx.templates);
    runner = std::make_unique<VariantRunner>(*ctx.device, variant,
                                             static_cast<std::uint32_t>(entry.problem.buffers.size()),
                                             static_cast<std::uint32_t>(kernel.shape_dims().size()),
                                             entry.on_device->copies() + 2);
    const auto check = runner->validate(*entry.on_device, entry.problem, kernel.variant_tolerance(config, shape));
    if (!check.passed) {
      skip("wrong result: " + check.reason);
      return;
    }
  } catch (const Error& e) {
    skip(e.what());
    return;
  }
  // One iteration = one submission of 15 timed samples of K back-to-back
  // dependent dispatches, as the tuner times them; the iteration time is their
  // median per dispatch. Each iteration first keeps the GPU busy for a few
  // milliseconds: between iterations the host reads results, and some GPUs
  // (an H200 here) drop their clocks within that gap.
  vk::TimerOptions timer;
  timer.warmup_samples = 1;
  timer.warmup = std::chrono::milliseconds(200);
  timer.samples = 15;
  std::uint32_t k = 0;
  double total_s = 0;
  for (auto _ : state) {
    timer.dispatches_per_sample = k;
    auto result = runner->time(*entry.on_device, shape, timer);
    k = result.dispatches_per_sample;  // probe once, then keep K
    timer.warmup = std::chrono::milliseconds(10);
    state.SetIterationTime(result.per_dispatch_ns.median * 1e-9);
    total_s += result.per_dispatch_ns.median * 1e-9;
  }
  const auto metrics = kernel.metrics(shape);
  state.SetBytesProcessed(static_cast<std::int64_t>(metrics.bytes) * state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(metrics.flops) * state.iterations());
  // pct_peak: the share of the device's measured ceiling, for whichever
  // resource (read bandwidth, or fp32 FMA or, on a tensor-core path, the
  // tensor-core rate) the kernel uses the larger share of.
  const double per_dispatch_s = state.iterations() > 0 ? total_s / static_cast<double>(state.iterations()) : 0;
  if (per_dispatch_s > 0) {
    const double read_pct =
        ctx.ceilings.read_gbps > 0 ? 100.0 * metrics.bytes / per_dispatch_s / (ctx.ceilings.read_gbps * 1e9) : 0.0;
    const double compute_pct = results::percent_of_compute(metrics.flops / per_dispatch_s / 1e9,
                                                           ctx.ceilings.fp32_gflops, ctx.ceilings.tensor_gflops,
                                                           kernels::on_tensor_cores(kernel, config, shape));
    state.counters["pct_peak"] = std::max(read_pct, compute_pct);
    if (stored_ns > 0) {
      state.counters["stored_us"] = stored_ns * 1e-3;
      state.counters["vs_stored"] = per_dispatch_s * 1e9 / stored_ns;
      ctx.winners->push_back({kernel.name() + " " + kernels::shape_to_string(shape), stored_ns, per_dispatch_s * 1e9, ""});
    }
  }
  state.counters["dispatches_per_sample"] = k;
}

}  // namespace

Registered register_kernel_benchmarks(const BenchOptions& options) {
  auto shared = std::make_shared<Context>();
  auto& ctx = *shared;
  ctx.cache_mode = options.cache_mode;
  ctx.instance = std::make_unique<vk::Instance>();
  ctx.device = std::make_unique<vk::Device>(*ctx.instance, options.device);
  const auto path = options.db.empty() ? results::Store::default_path() : std::filesystem::path(options.db);
  auto store = results::Store::open_read_only(path);
  // The winners to time are found as an application finds them: the runtime
  // library's lookup (same GPU and driver, same GPU, same model on another
  // GPU, same architecture, same vendor), for every tuned kernel and shape,
  // among the entries this device can run.
  const auto table = runtime::Table::open_sqlite(path);
  runtime::Query query;
  query.device = runtime_identity(ctx.device->info());
  query.capabilities = runtime_capabilities(ctx.device->info());
  // Each winner is compiled here again from its config, for the extension
  // this device's tensor-core paths use: a winner tuned through the other
  // one (NV on an H200, KHR elsewhere, or --coopmat) is its twin here.
  if (ctx.device->info().cooperative_matrix != vk::CooperativeMatrixExtension::none) {
    for (const char* either : {"cooperativeMatrixNV", "cooperativeMatrixKHR"}) {
      auto& features = query.capabilities.features;
      if (std::find(features.begin(), features.end(), either) == features.end()) features.emplace_back(either);
    }
  }
  query.cache_mode = to_string(options.cache_mode);
  std::set<std::pair<std::string, runtime::Shape>> tuned;
  for (const auto& e : table.entries()) {
    if (e.cache_mode != to_string(options.cache_mode)) continue;
    if (!options.kernels.empty() &&
        std::find(options.kernels.begin(), options.kernels.end(), e.kernel) == options.kernels.end()) {
      continue;
    }
    tuned.emplace(e.kernel, e.shape);
  }
  // Ceilings: this device's where stored, else those of the device a winner came from.
  std::optional<std::int64_t> ceiling_row = store.find_device(identity_of(ctx.device->info()));

  std::size_t registered = 0;
  for (const auto& [name, tuned_shape] : tuned) {
    const auto* kernel_ptr = kernels::find_kernel_or_null(name);
    if (kernel_ptr == nullptr) {
      std::cerr << "vktune-bench: kernel '" << name << "' is not known to this vktune (a spec kernel is "
                << "benchmarked when its spec file is named: vktune bench SPEC.json); left out\n";
      continue;
    }
    const auto& kernel = *kernel_ptr;
    query.kernel = name;
    query.shape = tuned_shape;
    runtime::LookupResult found;
    try {
      found = table.lookup(query);
    } catch (const runtime::Error& e) {
      std::cerr << "vktune-bench: " << e.what() << "\n";
      continue;
    }
    if (!found.exact_shape) continue;  // another device's shape: benchmarked where it was tuned
    if (found.match != runtime::Match::device_and_driver) std::cerr << "vktune-bench: " << name << " "
                                                                    << kernels::shape_to_string(tuned_shape) << ": "
                                                                    << found.match_text << "\n";
    if (!ceiling_row) ceiling_row = table.devices()[found.entry->device].id;
    const kernels::Shape shape(tuned_shape.begin(), tuned_shape.end());
    const auto base = kernel.name() + "/" + benchmark_shape_name(kernel, shape);
    // A winner stored before its kernel gained a parameter is completed
    // where a path fixes the value, else reported and left out.
    struct Timed {
      std::string label;
      kernels::Config config;
      double stored_ns;
    };
    std::vector<Timed> variants;
    const auto update = update_config(kernel, shape, kernels::config_from_json(found.entry->config_json));
    if (!update.note.empty()) {
      std::cerr << "vktune-bench: " << kernel.name() << " " << kernels::shape_to_string(shape) << " ("
                << found.entry->cache_mode << ") winner: " << update.note
                << (update.config ? "" : "; benchmarking its baseline only") << "\n";
    }
    if (update.config) {
      variants.push_back({"winner", *update.config, found.entry->median_ns});
    } else {  // a winner this vktune cannot run is not measured: --max-drift names it
      ctx.winners->push_back({kernel.name() + " " + kernels::shape_to_string(shape), found.entry->median_ns, 0,
                              update.note});
    }
    variants.push_back({"baseline", device_baseline(kernel, shape, ctx.device->info()), 0.0});
    for (const auto& [label, config, stored_ns] : variants) {
      benchmark::RegisterBenchmark((base + "/" + label).c_str(),
                                   [shared, &kernel, shape, config, stored_ns](benchmark::State& state) {
                                     run_variant(state, *shared, kernel, shape, config, stored_ns);
                                   })
          ->UseManualTime()
          ->Iterations(options.iterations)
          ->Unit(benchmark::kMicrosecond);
      ++registered;
    }
  }
  if (ceiling_row) {
    ctx.ceilings = {store.ceiling(*ceiling_row, kCeilingRead).value_or(0), store.ceiling(*ceiling_row, kCeilingFma).value_or(0)};
    ctx.ceilings.tensor_gflops = store.ceiling(*ceiling_row, kCeilingTensor).value_or(0);
  }
  // A table exported before the tensor cores were measured carries no
  // tensor ceiling; a tensor-core winner's rate was then read against the
  // FMA ceiling (328% for matmul_f16 on an H200). Measured here, for this
  // run only: the database is opened read-only.
  if (ctx.ceilings.tensor_gflops <= 0 && ctx.device->info().cooperative_matrix != vk::CooperativeMatrixExtension::none) {
    measure_tensor_ceilings(*ctx.device, ctx.templates, ctx.ceilings);
  }
  if (registered == 0 && tuned.empty()) {
    throw Error(ErrorKind::usage, "no results in " + path.string() + "; tune first, e.g. `vktune matmul_q4k --device " +
                                      std::to_string(options.device) + "`");
  }
  return {registered, ctx.device->info(), std::filesystem::absolute(path), ctx.winners};
}

}  // namespace vktune::bench
