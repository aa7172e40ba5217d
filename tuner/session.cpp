#include "tuner/session.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <list>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "engine/attempt_log.hpp"
#include "engine/clock_probe.hpp"
#include "engine/device_problem.hpp"
#include "engine/elapsed.hpp"
#include "engine/evaluator.hpp"
#include "engine/validation_inputs.hpp"
#include "common/hash.hpp"
#include "tuner/device_baseline.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/transfer.hpp"
#include "tuner/session_evaluation.hpp"
#include "engine/device_reference.hpp"
#include "engine/stale_config.hpp"
#include "engine/statistics_json.hpp"
#include "engine/test_hooks.hpp"
#include "engine/variant.hpp"

namespace vktune {

results::Status status_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::compile: return results::Status::compile_error;
    case ErrorKind::pipeline: return results::Status::pipeline_error;
    case ErrorKind::compile_timeout: return results::Status::compile_timeout;
    case ErrorKind::compile_crash: return results::Status::compile_crash;
    case ErrorKind::compile_memory: return results::Status::compile_memory;
    case ErrorKind::pipeline_timeout: return results::Status::pipeline_timeout;
    case ErrorKind::pipeline_crash: return results::Status::pipeline_crash;
    case ErrorKind::pipeline_memory: return results::Status::pipeline_memory;
    case ErrorKind::device_limit: return results::Status::device_limit;
    case ErrorKind::wrong_result: return results::Status::wrong_result;
    case ErrorKind::out_of_bounds: return results::Status::out_of_bounds;
    case ErrorKind::nondeterministic: return results::Status::nondeterministic;
    case ErrorKind::timeout: return results::Status::timeout;
    case ErrorKind::device_lost: return results::Status::device_lost;
    default: return results::Status::error;
  }
}


std::size_t ShapeResult::failures() const {
  return static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(),
                                                [](const Outcome& o) { return o.status != results::Status::ok; }));
}

std::uint64_t shape_seed(std::uint64_t seed, const kernels::Shape& shape) {
  return Hasher().add(seed).add(kernels::shape_to_string(shape)).value();
}

TuneSession::TuneSession(vk::Instance& instance, std::uint32_t device_index, results::Store* store,
                         const TemplateLibrary& templates, ProgressObserver& progress)
    : instance_(instance), device_index_(device_index), store_(store), templates_(templates), progress_(progress) {
  device_ = std::make_unique<vk::Device>(instance, device_index);
  if (store_) device_row_ = store_->upsert_device(identity_of(device_->info()));
}

void TuneSession::reopen_device() {
  progress_.message("device " + device_->info().name + " became unusable (" + device_->unusable_reason() +
                    "); opening it again");
  const bool watched = device_->clock_gauge() != nullptr;
  abandoned_.push_back(std::move(device_));
  device_ = std::make_unique<vk::Device>(instance_, device_index_);
  if (watched) {
    vk::TimerOptions timer;
    timer.watch_clock = true;
    watch_clock(timer);
  }
}

void TuneSession::watch_clock(const vk::TimerOptions& timer) {
  if (device_->clock_gauge() || !timer.watch_clock.value_or(!device_->info().is_cpu())) return;
  try {
    device_->set_clock_gauge(make_clock_probe(*device_));
  } catch (const Error& e) {
    progress_.message("the clock probe could not be built (" + std::string(e.what()) +
                      "); warm-ups go by idle gaps");
  }
}

void TuneSession::record(const kernels::Kernel& kernel, const CompiledVariant& variant, const Outcome& o,
                         const std::string& shape_text, CacheMode cache_mode, results::Phase phase) {
  test_hooks::before_record();
  store_->transaction([&] {
    // A multi-stage variant is recorded under its first stage's template.
    store_->upsert_variant({variant.variant_hash, kernel.name(), variant.stages[0].plan.template_file,
                            kernels::config_to_json(variant.config), variant.stages[0].template_hash,
                            vk::compiler_version()});
    results::Measurement m;
    m.device_id = *device_row_;
    m.variant_hash = o.variant_hash;
    m.shape = shape_text;
    m.cache_mode = to_string(cache_mode);
    m.status = o.status;
    m.reason = o.reason;
    m.median_ns = o.timing.median;
    m.min_ns = o.timing.min;
    m.p10_ns = o.timing.p10;
    m.p90_ns = o.timing.p90;
    m.mad_ns = o.timing.mad;
    m.repetitions = static_cast<int>(o.timing.count);
    m.rel_l2_error = o.validation.rel_l2;
    m.max_abs_error = o.validation.max_abs;
    m.gbps = o.gbps;
    m.gflops = o.gflops;
    m.phase = phase;
    m.durations = phase == results::Phase::confirm ? o.confirm_durations : o.durations;
    if (!o.statistics.empty()) m.statistics_json = statistics_json(o.statistics).dump();
    store_->record_measurement(m);
  });
}

ShapeResult TuneSession::tune(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options) {
  return run(kernel, shape, options, {}, false);
}

ShapeResult TuneSession::check(const kernels::Kernel& kernel, const kernels::Shape& shape,
                               const std::vector<kernels::Config>& configs, std::uint64_t seed, bool check_bounds) {
  TuneOptions options;
  options.time_variants = false;
  options.check_bounds = check_bounds;
  options.cache_mode = CacheMode::hot;
  options.seed = seed;
  return run(kernel, shape, options, configs, true);
}

ShapeResult TuneSession::run(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options,
                             std::vector<kernels::Config> explicit_configs, bool use_explicit) {
  kernel.validate_shape(shape);
  require_device_fits(kernel, shape, device_->info());  // before inputs, references or uploads
  watch_clock(options.timer);
  const auto run_start = Clock::now();
  const std::string shape_text = kernels::shape_to_string(shape);
  const std::string title = kernel.name() + " " + shape_text;
  ShapeResult result;
  result.shape = shape;
  result.seed = shape_seed(options.seed, shape);
  progress_.phase(title + ": enumerating the space");
  auto space = enumerate_space(kernel, shape, device_->info(), options.space);
  result.space_name = space.space_name;
  result.space_scope = options.space;
  for (const auto& [rule, count] : space.pruned_by) result.space_pruned += count;
  result.space_total = space.total;
  result.space_filtered = space.filtered;
  result.space_valid = space.valid.size();
  // Moved, not copied, on to the search: the legal configs are the run's
  // largest data (issue 40, item 6).
  auto candidates = options.only.empty() ? std::move(space.valid) : select_only(kernel, shape, space.valid, options.only);
  if (!options.only.empty()) result.space_selected = candidates.size();

  progress_.phase(title + ": making the inputs and the CPU reference");
  auto problem = kernel.make_problem(shape, result.seed);
  std::uint64_t weight_bytes = 0;
  for (const auto& b : problem.buffers)
    if (b.is_weights) weight_bytes += b.bytes.size();
  const std::uint32_t copies = options.cache_mode == CacheMode::cold && options.time_variants
                                   ? cold_cache_copies(weight_bytes, device_->info().device_local_bytes())
                                   : 1;
  progress_.phase(title + ": uploading the inputs (" + std::to_string(copies) + " cop" + (copies == 1 ? "y" : "ies") +
                  ")");
  auto on_device = std::make_unique<DeviceProblem>(*device_, problem, copies);
  if (kernel.device_reference(shape)) {
    progress_.phase(title + ": running the reference on the device");
    complete_reference(*device_, kernel, problem, *on_device, templates_);
  }
  progress_.phase(title + ": making the further validation inputs");
  ValidationInputs more(kernel, shape, further_validation_inputs(result.seed), templates_);
  more.upload(*device_);
  Evaluation evaluation(*this, kernel, shape, options, problem, on_device, more, copies, result);
  std::future<std::unique_ptr<ValidationInputs>> final_inputs;  // see below

  if (use_explicit) {
    // Exactly these configs, in order (the check command).
    progress_.start(title, explicit_configs.size());
    for (std::size_t start = 0; start < explicit_configs.size(); start += 8) {
      const std::vector<kernels::Config> batch(explicit_configs.begin() + static_cast<long>(start),
                                               explicit_configs.begin() +
                                                   static_cast<long>(std::min(explicit_configs.size(), start + 8)));
      evaluation.prepare_configs(batch, false);
      for (const auto& config : batch) evaluation.evaluate_config(config);
    }
  } else {
    search(evaluation, kernel, shape, options, std::move(candidates), run_start, result, final_inputs);
  }
  progress_.finish();
  // An interrupted shape ends now: a resumed run searches it to the end.
  if (options.interrupted && options.interrupted()) {
    progress_.end_shape();
    return result;
  }
  if (options.time_variants && options.confirm_top > 0 && result.winner) {
    confirm(kernel, problem, *on_device, options, result);
  }
  if (options.time_variants && result.winner) time_winner_stages(kernel, problem, *on_device, options, result);

  if (options.time_variants && result.winner) {
    const auto check_start = Clock::now();
    final_check(kernel, options, result, std::move(final_inputs));
    result.final_check_seconds = std::chrono::duration<double>(Clock::now() - check_start).count();
  }
  progress_.phase("storing the winner");
  store_winner(kernel, shape, shape_text, options, result);
  progress_.end_shape();  // what the caller prints next starts on a clean line
  return result;
}

void TuneSession::search(Evaluation& evaluation, const kernels::Kernel& kernel, const kernels::Shape& shape,
                         const TuneOptions& options, ConfigList candidates,
                         Clock::time_point run_start, ShapeResult& result,
                         std::future<std::unique_ptr<ValidationInputs>>& final_inputs) {
  const std::string title = kernel.name() + " " + kernels::shape_to_string(shape);
  const auto bounded = options.budget || options.deadline || options.target_ns || options.converge;
  const SearchSpace search(kernel.spaces().at(kernel.space_index(shape)).parameters, candidates);
  candidates.clear();  // the search space holds them, more compactly
  result.strategy = !options.strategy.empty()                            ? options.strategy
                    : bounded || search.size() > kExhaustiveUpTo ? kSurrogateStrategy
                                                                         : "exhaustive";
  auto strategy = make_strategy(result.strategy, {search, result.seed, static_cast<bool>(bounded)});
  AnyStopCondition stop;
  if (options.budget) stop.add(stop_after_variants(*options.budget));
  if (options.target_ns) stop.add(stop_at_target(*options.target_ns, options.target_within));
  if (options.converge) stop.add(stop_on_convergence(*options.converge));
  if (options.interrupted) stop.add(stop_when(options.interrupted));
  SearchLoop loop(search, *strategy, stop, options.batch_size, options.budget);
  std::vector<kernels::Config> seed_configs;
  if (options.transfer) {
    progress_.phase(title + ": looking up the best configs of tuned shapes nearby");
    std::vector<std::size_t> seeds;
    for (const auto& config : transfer_seeds(kernel, shape, options.cache_mode, result.transfer_from)) {
      if (auto index = search.index_of(config)) {
        seeds.push_back(*index);
        seed_configs.push_back(config);
      }
    }
    loop.add_seeds(seeds);
  }
  evaluation.bind(&search);
  if (options.time_variants && options.final_check_beside_search.value_or(!device_->info().is_cpu())) {
    final_inputs = final_check_inputs_beside(kernel, shape, result.seed);
  }
  const auto search_start = Clock::now();
  result.setup_seconds = std::chrono::duration<double>(search_start - run_start).count();
  if (options.deadline) {
    stop.add(stop_at(options.search_deadline ? std::min(*options.deadline, options.search_deadline(search_start))
                                             : *options.deadline));
  }
  const std::size_t planned = 1 + std::min(search.size(), options.budget.value_or(search.size()));
  progress_.start(title, planned);

  // The baseline always runs first, so that the speedup can be reported;
  // the strategy learns from it like any result.
  const auto baseline = device_baseline(kernel, shape, device_->info());
  if (const auto own = kernel.baseline(shape); baseline != own) {
    progress_.message("the kernel's baseline " + kernels::config_to_string(own) + " is not legal here (" +
                      kernel.constraint_violation(own, shape, device_->info()).detail +
                      "); the baseline is the legal config fewest parameters away: " +
                      kernels::config_to_string(baseline));
  }
  evaluation.prepare_configs({baseline}, true);
  const auto& base = evaluation.evaluate_config(baseline);
  if (auto index = search.index_of(baseline)) {
    loop.observe_outside({*index,
                          base.status == results::Status::ok ? std::optional<double>(base.timing.median) : std::nullopt,
                          base.status, base.durations.total_ms() / 1000.0});
  }
  // The winner another GPU of this model stored for this very shape (an
  // imported table's, which a step here serves while this device has none
  // of its own) is measured here too, inside --only or not: a restricted or
  // short search that never reaches it cannot then store a slower winner to
  // be served ahead of it (session 37: the k and v products' imported
  // 53.5 µs winners displaced by 87.8 µs ones).
  std::string served_from;
  if (options.transfer && options.time_variants) {
    if (auto served = served_winner(kernel, shape, options.cache_mode, served_from); served && *served != baseline) {
      progress_.message("measuring the winner " + served_from + " stored for this shape beside the search");
      evaluation.prepare_configs({*served}, false);
      const auto& o = evaluation.evaluate_config(*served);
      if (auto index = search.index_of(*served)) {
        loop.observe_outside({*index,
                              o.status == results::Status::ok ? std::optional<double>(o.timing.median) : std::nullopt,
                              o.status, o.durations.total_ms() / 1000.0});
      }
    }
  }
  // Beside the next batch, one batch of the strategy's guesses at the one
  // after is compiled ahead, behind every config to be measured (they take
  // a free worker only). More guesses held workers with compiles of
  // configs never measured.
  const std::size_t lookahead = options.batch_size;
  result.stop_reason = run_search(loop, evaluation, [] { return Clock::now(); }, lookahead);
  result.search_seconds = std::chrono::duration<double>(Clock::now() - search_start).count();
  result.proposal_seconds = loop.proposal_seconds();
  result.deferred_spilling = loop.deferred_count();
  result.deferred_not_measured = loop.deferred_left();
  result.stopped_early = !result.stop_reason.empty();
  for (auto& o : result.outcomes)
    o.transfer_seed = !o.is_baseline && std::find(seed_configs.begin(), seed_configs.end(), o.config) != seed_configs.end();
}

}  // namespace vktune
