#include "tuner/device_reference.hpp"
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
#include "tuner/attempt_log.hpp"
#include "tuner/device_problem.hpp"
#include "tuner/elapsed.hpp"
#include "tuner/evaluator.hpp"
#include "tuner/validation_inputs.hpp"
#include "common/hash.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/transfer.hpp"
#include "tuner/stale_config.hpp"
#include "tuner/test_hooks.hpp"
#include "tuner/variant.hpp"

namespace vktune {

results::Status status_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::compile: return results::Status::compile_error;
    case ErrorKind::pipeline: return results::Status::pipeline_error;
    case ErrorKind::device_limit: return results::Status::device_limit;
    case ErrorKind::wrong_result: return results::Status::wrong_result;
    case ErrorKind::out_of_bounds: return results::Status::out_of_bounds;
    case ErrorKind::nondeterministic: return results::Status::nondeterministic;
    case ErrorKind::timeout: return results::Status::timeout;
    case ErrorKind::device_lost: return results::Status::device_lost;
    default: return results::Status::error;
  }
}

namespace {

struct Candidate {
  CompiledVariant variant;
  bool is_baseline = false;
  std::optional<results::Measurement> previous;  // measured by an earlier run
  std::optional<Error> compile_error;
  double compile_ms = 0;  // 0 when the SPIR-V came from the store
  // The pipeline, created on the compile thread so that the device does not
  // idle (and clock down) while the driver compiles it; or why it could not
  // be. `runner_device` is the device it was made on.
  std::unique_ptr<VariantRunner> runner;
  std::optional<Error> pipeline_error;
  double pipeline_ms = 0;
  const vk::Device* runner_device = nullptr;
};

// Creates the pipeline of each compiled candidate that is to be measured.
void create_pipelines(std::vector<Candidate>& batch, vk::Device& device, std::uint32_t buffers, std::uint32_t dims,
                      std::uint32_t descriptor_sets, AttemptLog* attempts) {
  for (auto& c : batch) {
    if (c.previous || c.compile_error) continue;
    const auto start = Clock::now();
    if (attempts) attempts->begin(c.variant, "creating its pipeline");
    try {
      c.runner = std::make_unique<VariantRunner>(device, c.variant, buffers, dims, descriptor_sets);
    } catch (const Error& e) {
      c.pipeline_error = e;
    } catch (const std::exception& e) {  // e.g. bad_alloc: the variant's failure, not the run's
      c.pipeline_error = Error(ErrorKind::pipeline, std::string("pipeline creation failed: ") + e.what());
    }
    if (attempts) attempts->end(c.variant);  // the process survived it
    c.runner_device = &device;
    c.pipeline_ms = ms_since(start);
  }
}

// Compiles every candidate that needs SPIR-V, `threads` at a time.
void compile_all(std::vector<Candidate>& batch, const TemplateLibrary& templates, unsigned threads) {
  std::vector<Candidate*> todo;
  for (auto& c : batch)
    if (!c.previous && !c.variant.compiled()) todo.push_back(&c);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      const auto start = Clock::now();
      // Whatever a compile throws is recorded against its variant: an
      // exception escaping this thread would end the process (std::terminate).
      try {
        compile_variant(todo[i]->variant, templates);
      } catch (const Error& e) {
        todo[i]->compile_error = e;
      } catch (const std::exception& e) {
        todo[i]->compile_error = Error(ErrorKind::compile, std::string("the compiler failed: ") + e.what());
      } catch (...) {
        todo[i]->compile_error = Error(ErrorKind::compile, "the compiler failed with an unknown exception");
      }
      todo[i]->compile_ms = ms_since(start);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, todo.size()); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

Outcome from_measurement(const results::Measurement& m, const kernels::Config& config, bool is_baseline) {
  Outcome o;
  o.config = config;
  o.variant_hash = m.variant_hash;
  o.status = m.status;
  o.reason = m.reason;
  o.validation.passed = m.status == results::Status::ok;
  o.validation.rel_l2 = m.rel_l2_error;
  o.validation.max_abs = m.max_abs_error;
  o.timing.median = m.median_ns;
  o.timing.min = m.min_ns;
  o.timing.p10 = m.p10_ns;
  o.timing.p90 = m.p90_ns;
  o.timing.mad = m.mad_ns;
  o.timing.count = static_cast<std::size_t>(m.repetitions);
  o.gbps = m.gbps;
  o.gflops = m.gflops;
  o.is_baseline = is_baseline;
  o.resumed = true;
  return o;
}

}  // namespace

std::size_t ShapeResult::failures() const {
  return static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(),
                                                [](const Outcome& o) { return o.status != results::Status::ok; }));
}

std::uint64_t shape_seed(std::uint64_t seed, const kernels::Shape& shape) {
  return Hasher().add(seed).add(kernels::shape_to_string(shape)).value();
}

results::DeviceIdentity identity_of(const vk::DeviceInfo& info) {
  results::DeviceIdentity id;
  id.vendor_id = info.vendor_id;
  id.device_id = info.device_id;
  id.driver_version = info.driver_version_raw;
  id.name = info.name;
  id.driver_name = info.driver_name;
  id.driver_version_text = info.driver_version;
  id.device_uuid = info.device_uuid;
  id.api_version_text = info.api_version;
  return id;
}

TuneSession::TuneSession(vk::Instance& instance, std::uint32_t device_index, results::Store* store,
                         const TemplateLibrary& templates, Progress& progress)
    : instance_(instance), device_index_(device_index), store_(store), templates_(templates), progress_(progress) {
  device_ = std::make_unique<vk::Device>(instance, device_index);
  if (store_) device_row_ = store_->upsert_device(identity_of(device_->info()));
}

void TuneSession::reopen_device() {
  progress_.message("device " + device_->info().name + " became unusable (" + device_->unusable_reason() +
                    "); opening it again");
  abandoned_.push_back(std::move(device_));
  device_ = std::make_unique<vk::Device>(instance_, device_index_);
}

void TuneSession::record(const kernels::Kernel& kernel, const CompiledVariant& variant, const Outcome& o,
                         const std::string& shape_text, const std::string& cache_mode, results::Phase phase) {
  store_->transaction([&] {
    // A multi-stage variant is recorded under its first stage's template.
    store_->upsert_variant({variant.variant_hash, kernel.name(), variant.stages[0].plan.template_file,
                            kernels::config_to_json(variant.config), variant.stages[0].template_hash,
                            vk::compiler_version()});
    results::Measurement m;
    m.device_id = *device_row_;
    m.variant_hash = o.variant_hash;
    m.shape = shape_text;
    m.cache_mode = cache_mode;
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
    store_->record_measurement(m);
  });
}

ShapeResult TuneSession::tune(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options) {
  return run(kernel, shape, options, {}, false);
}

ShapeResult TuneSession::check(const kernels::Kernel& kernel, const kernels::Shape& shape,
                               const std::vector<kernels::Config>& configs, std::uint64_t seed) {
  TuneOptions options;
  options.time_variants = false;
  options.cache_mode = "hot";
  options.seed = seed;
  return run(kernel, shape, options, configs, true);
}

// Evaluates configs of one shape: prepare() looks up stored results and
// starts compiling a batch in the background; evaluate() validates and times
// one config on the device (strictly one at a time), records the outcome and
// reports it to the search.
class TuneSession::Evaluation final : public BatchEvaluator {
 public:
  Evaluation(TuneSession& session, const kernels::Kernel& kernel, const kernels::Shape& shape,
             const TuneOptions& options, const kernels::Problem& problem, std::unique_ptr<DeviceProblem>& on_device,
             ValidationInputs& more, std::uint32_t copies, ShapeResult& result)
      : session_(session),
        kernel_(kernel),
        shape_(shape),
        shape_text_(kernels::shape_to_string(shape)),
        options_(options),
        problem_(problem),
        on_device_(on_device),
        more_(more),
        copies_(copies),
        metrics_(kernel.metrics(shape)),
        result_(result) {
    if (session.store_ && options.time_variants) {
      attempts_ = std::make_unique<AttemptLog>(session.store_->path(), *session.device_row_, kernel.name(),
                                               shape_text_, options.cache_mode);
    }
  }
  ~Evaluation() override {
    stop_heating();
    for (auto& b : compiles_)
      if (b.compiling.valid()) b.compiling.wait();
  }

  // The configs behind the indices a search hands out.
  void bind(const SearchSpace* space) { space_ = space; }

  // While the strategy fits its model, the last timed variant keeps the GPU
  // busy on another thread (the only one using the queue until prepare()).
  void before_proposal() override {
    if (!heater_ || heater_device_ != session_.device_.get()) return;
    heating_ = true;
    heating_done_ = std::async(std::launch::async, [this] {
      while (heating_ && keep_busy()) {
      }
    });
  }

  void prepare(const std::vector<std::size_t>& batch) override {
    stop_heating();
    std::vector<kernels::Config> configs;
    for (auto index : batch) configs.push_back(space_->config(index));
    prepare_configs(configs, false);
  }

  // Compiles ahead in the background; a later prepare() finds them.
  void speculate(const std::vector<std::size_t>& likely) override { prepare(likely); }

  // Starts compiling the configs not prepared before, each on its own
  // thread, so that a config waits for its own compile only.
  void prepare_configs(const std::vector<kernels::Config>& configs, bool is_baseline) {
    for (const auto& config : configs) {
      if (!prepared_.insert(config).second) continue;
      auto& b = compiles_.emplace_back();
      Candidate c;
      c.variant = describe_variant(kernel_, config, shape_, session_.templates_);
      c.is_baseline = is_baseline;
      auto* store = session_.store_;
      if (store && options_.time_variants) {
        c.previous = store->find_measurement(*session_.device_row_, c.variant.variant_hash, shape_text_,
                                             options_.cache_mode);
        if (c.previous) c.previous = settle_attempt(std::move(*c.previous), *store);
      }
      if (!c.previous && store) {
        load_cached_spirv(c.variant, *store);
      }
      b.candidates.push_back(std::move(c));
      auto* candidates = &b.candidates;
      const auto& templates = session_.templates_;
      auto* device = session_.device_.get();
      const auto buffers = static_cast<std::uint32_t>(problem_.buffers.size());
      const auto dims = static_cast<std::uint32_t>(kernel_.shape_dims().size());
      const auto sets = copies_ + 2 + static_cast<std::uint32_t>(more_.size());  // + the further inputs
      auto* attempts = attempts_.get();
      b.compiling = std::async(std::launch::async, [candidates, &templates, device, buffers, dims, sets, attempts] {
        compile_all(*candidates, templates, 1);
        create_pipelines(*candidates, *device, buffers, dims, sets, attempts);
      });
    }
  }

  Observation evaluate(std::size_t index) override {
    const auto& outcome = evaluate_config(space_->config(index));
    return {index, outcome.status == results::Status::ok && options_.time_variants
                       ? std::optional<double>(outcome.timing.median)
                       : std::nullopt};
  }

  // Validates (and times) a prepared config; the outcome joins the result.
  const Outcome& evaluate_config(const kernels::Config& config) {
    stop_heating();
    Candidate& c = find(config);
    const bool resumed = c.previous.has_value();
    if (c.previous) {
      result_.outcomes.push_back(from_measurement(*c.previous, c.variant.config, c.is_baseline));
    } else {
      result_.outcomes.push_back(measure(c));
    }
    const auto& last = result_.outcomes.back();
    if (c.is_baseline) result_.baseline = result_.outcomes.size() - 1;
    if (last.status == results::Status::ok && options_.time_variants && (!best_ns_ || last.timing.median < *best_ns_)) {
      best_ns_ = last.timing.median;
      result_.winner = result_.outcomes.size() - 1;
    }
    session_.progress_.update(result_.outcomes.size(), result_.failures(),
                              best_ns_ ? std::optional<double>(*best_ns_ / 1000.0) : std::nullopt, resumed);
    return last;
  }

 private:
  struct PendingCompile {  // one config, compiling on its own thread
    std::vector<Candidate> candidates;
    std::future<void> compiling;
  };

  Candidate& find(const kernels::Config& config) {
    for (auto& b : compiles_) {
      for (auto& c : b.candidates) {
        if (c.variant.config != config) continue;
        if (b.compiling.valid()) {
          if (b.compiling.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            session_.progress_.step(c.previous ? "preparing" : "compiling");
          }
          // While the driver still compiles it, the last variant keeps the
          // GPU busy: idle for a few hundred milliseconds, an H200 clocks
          // down and the next variant would need a full re-warm-up.
          while (b.compiling.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            if (!keep_busy()) {
              b.compiling.wait();
              break;
            }
          }
          b.compiling.get();
        }
        return c;
      }
    }
    throw Error(ErrorKind::internal, "evaluation of a config that was never prepared");
  }

  void stop_heating() {
    heating_ = false;
    if (heating_done_.valid()) heating_done_.get();
  }

  // About 10 ms of the last timed variant's work; false when there is none
  // to run (a CPU device, validation only, nothing timed yet, or the device
  // was reopened since).
  bool keep_busy() {
    if (!heater_ || heater_device_ != session_.device_.get()) return false;
    try {
      heater_->keep_busy(*on_device_, shape_, heater_dispatches_);
    } catch (const Error&) {
      heater_.reset();  // the next measurement reports what is wrong
      return false;
    }
    return true;
  }

  Outcome measure(Candidate& c) {
    auto& device = *session_.device_;
    Outcome o;
    o.config = c.variant.config;
    o.variant_hash = c.variant.variant_hash;
    o.is_baseline = c.is_baseline;
    o.durations.compile_ms = c.compile_ms;
    try {
      if (c.compile_error) throw *c.compile_error;
      if (session_.store_) cache_spirv(c.variant, *session_.store_);
      // Replaced by the result below; left behind only if the process dies.
      if (attempts_) attempts_->begin(c.variant, "running it on the device");
      std::unique_ptr<VariantRunner> runner;
      if (c.runner_device == &device) {  // made on the compile thread
        o.durations.pipeline_ms = c.pipeline_ms;
        if (c.pipeline_error) throw *c.pipeline_error;
        runner = std::move(c.runner);
      } else {  // the device was reopened since
        AddElapsed clock{o.durations.pipeline_ms};
        runner = std::make_unique<VariantRunner>(device, c.variant, static_cast<std::uint32_t>(problem_.buffers.size()),
                                                 static_cast<std::uint32_t>(kernel_.shape_dims().size()),
                                                 copies_ + 2 + static_cast<std::uint32_t>(more_.size()));
      }
      {
        session_.progress_.step("validating");
        AddElapsed clock{o.durations.validation_ms};
        test_hooks::before_dispatch();
        const auto tolerance = kernel_.variant_tolerance(c.variant.config, shape_);
        const auto timeout = test_hooks::validation_timeout().value_or(
            device.info().is_cpu() ? vk::kCpuDriverTimeout : vk::kDefaultTimeout);
        o.validation = validate_further(*runner, more_, tolerance, timeout,
                                        runner->validate(*on_device_, problem_, tolerance, timeout));
      }
      if (!o.validation.passed) {
        throw Error(o.validation.out_of_bounds ? ErrorKind::out_of_bounds : ErrorKind::wrong_result,
                    o.validation.reason);
      }
      if (options_.time_variants) {
        session_.progress_.step("timing");
        const auto timed = runner->time(*on_device_, shape_, options_.timer);
        o.timing = timed.per_dispatch_ns;
        o.durations.warmup_ms = timed.warmup_ms;
        o.durations.timing_ms = timed.timing_ms;
        o.gbps = metrics_.bytes / o.timing.median;
        o.gflops = metrics_.flops / o.timing.median;
        if (!device.info().is_cpu()) {
          heater_dispatches_ = static_cast<std::uint32_t>(std::clamp(10e6 / std::max(o.timing.median, 1.0), 1.0, 4096.0));
          heater_device_ = &device;
          heater_ = std::move(runner);
        }
      }
    } catch (const Error& e) {
      o.status = status_for(e.kind());
      o.reason = e.what();
      if (!session_.device_->usable()) {
        on_device_.reset();
        session_.reopen_device();
        on_device_ = std::make_unique<DeviceProblem>(*session_.device_, problem_, copies_);
        more_.upload(*session_.device_);
      }
    }
    if (session_.store_ && options_.time_variants) {
      session_.record(kernel_, c.variant, o, shape_text_, options_.cache_mode);
    }
    return o;
  }

  TuneSession& session_;
  std::unique_ptr<AttemptLog> attempts_;  // before compiles_: their threads use it
  const kernels::Kernel& kernel_;
  const kernels::Shape& shape_;
  const std::string shape_text_;
  const TuneOptions& options_;
  const kernels::Problem& problem_;
  std::unique_ptr<DeviceProblem>& on_device_;
  ValidationInputs& more_;  // the inputs validated on after the timed one
  const std::uint32_t copies_;
  const kernels::Metrics metrics_;
  ShapeResult& result_;
  const SearchSpace* space_ = nullptr;
  std::list<PendingCompile> compiles_;  // a list: an entry stays put while it compiles
  std::set<kernels::Config> prepared_;
  std::optional<double> best_ns_;
  std::unique_ptr<VariantRunner> heater_;  // the last timed variant, see keep_busy
  const vk::Device* heater_device_ = nullptr;
  std::uint32_t heater_dispatches_ = 1;
  std::atomic<bool> heating_{false};
  std::future<void> heating_done_;  // the heater's thread, see before_proposal
};

ShapeResult TuneSession::run(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options,
                             std::vector<kernels::Config> explicit_configs, bool use_explicit) {
  kernel.validate_shape(shape);
  const auto run_start = Clock::now();
  const std::string shape_text = kernels::shape_to_string(shape);
  const std::string title = kernel.name() + " " + shape_text;
  ShapeResult result;
  result.shape = shape;
  result.seed = shape_seed(options.seed, shape);
  progress_.phase(title + ": enumerating the space");
  const auto space = enumerate_space(kernel, shape, device_->info(), options.space);
  result.space_name = space.space_name;
  result.space_scope = options.space;
  for (const auto& [rule, count] : space.pruned_by) result.space_pruned += count;
  result.space_total = space.total;
  result.space_filtered = space.filtered;
  result.space_valid = space.valid.size();
  auto candidates = space.valid;
  if (!options.only.empty()) {
    candidates = select_only(kernel, shape, space.valid, options.only);
    result.space_selected = candidates.size();
  }

  progress_.phase(title + ": making the inputs and the CPU reference");
  auto problem = kernel.make_problem(shape, result.seed);
  std::uint64_t weight_bytes = 0;
  for (const auto& b : problem.buffers)
    if (b.is_weights) weight_bytes += b.bytes.size();
  const std::uint32_t copies = options.cache_mode == "cold" && options.time_variants
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
    const auto bounded = options.budget || options.deadline || options.target_ns || options.converge;
    const SearchSpace search(kernel.spaces().at(kernel.space_index(shape)).parameters, candidates);
    result.strategy = !options.strategy.empty()                            ? options.strategy
                      : bounded || search.size() > kExhaustiveUpTo ? "model"
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
    const auto baseline = kernel.baseline(shape);
    evaluation.prepare_configs({baseline}, true);
    const auto& base = evaluation.evaluate_config(baseline);
    if (auto index = search.index_of(baseline)) {
      loop.observe_outside({*index, base.status == results::Status::ok ? std::optional<double>(base.timing.median)
                                                                       : std::nullopt});
    }
    // Compile ahead what the strategy expects to propose next, so that a
    // batch rarely waits for its compile and the GPU rarely idles into a
    // re-warm-up; on a CPU driver compiles compete with the device itself.
    const std::size_t lookahead = device_->info().is_cpu() ? options.batch_size : 6 * options.batch_size;
    result.stop_reason = run_search(loop, evaluation, [] { return Clock::now(); }, lookahead);
    result.search_seconds = std::chrono::duration<double>(Clock::now() - search_start).count();
    result.stopped_early = !result.stop_reason.empty();
    for (auto& o : result.outcomes)
      o.transfer_seed = !o.is_baseline && std::find(seed_configs.begin(), seed_configs.end(), o.config) != seed_configs.end();
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

}  // namespace vktune
