#include "tuner/session_evaluation.hpp"

#include <algorithm>
#include <thread>

#include "engine/elapsed.hpp"
#include "engine/test_hooks.hpp"
#include "harness/pipeline_statistics.hpp"

namespace vktune {

TuneSession::Evaluation::Evaluation(TuneSession& session, const kernels::Kernel& kernel, const kernels::Shape& shape,
                                    const TuneOptions& options, const kernels::Problem& problem,
                                    std::unique_ptr<DeviceProblem>& on_device, ValidationInputs& more,
                                    std::uint32_t copies, ShapeResult& result)
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
  if (options.pipeline_statistics) {
    try {
      statistics_floor_ = vk::statistics_of_an_empty_shader(*session.device_);
    } catch (const Error&) {
      // A driver that cannot build an empty shader fails every variant
      // anyway; without a floor, spills read against 0.
    }
  }
  if (session.store_ && options.time_variants) {
    attempts_ = std::make_unique<AttemptLog>(session.store_->path(), *session.device_row_, kernel.name(), shape_text_,
                                             options.cache_mode);
  }
}

TuneSession::Evaluation::~Evaluation() {
  heater_.stop();
  for (auto& b : compiles_)
    if (b.compiling.valid()) b.compiling.wait();
}

void TuneSession::Evaluation::before_proposal() { heater_.start(*session_.device_, *on_device_, shape_); }

void TuneSession::Evaluation::prepare(const std::vector<std::size_t>& batch) {
  heater_.stop();
  std::vector<kernels::Config> configs;
  for (auto index : batch) configs.push_back(space_->config(index));
  prepare_configs(configs, false);
}

void TuneSession::Evaluation::speculate(const std::vector<std::size_t>& likely) {
  std::vector<kernels::Config> configs;
  for (auto index : likely) configs.push_back(space_->config(index));
  prepare_configs(configs, false, false);
}

void TuneSession::Evaluation::prepare_configs(const std::vector<kernels::Config>& configs, bool is_baseline,
                                              bool wanted) {
  for (const auto& config : configs) {
    if (auto known = prepared_.find(config); known != prepared_.end()) {
      // A guess compiled ahead is now to be measured: it goes ahead of
      // the guesses still waiting for a worker.
      if (wanted && !known->second->wanted.exchange(true) && session_.workers_) session_.workers_->wake();
      continue;
    }
    auto& b = compiles_.emplace_back();
    b.wanted = wanted;
    prepared_.emplace(config, &b);
    Candidate c;
    c.variant = describe_variant(kernel_, config, shape_, session_.templates_);
    c.is_baseline = is_baseline;
    auto* store = session_.store_;
    if (store && options_.time_variants) {
      c.previous =
          store->find_measurement(*session_.device_row_, c.variant.variant_hash, shape_text_, options_.cache_mode);
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
    auto* workers = session_.workers_;
    // A compile or pipeline in flight at the deadline may finish in the slack
    // that --time's bound allows (1.05 T + 10 s). The baseline, which always
    // runs (the speedup is measured against it), has only its worker's own
    // deadline.
    const auto limit = options_.deadline && !is_baseline
                           ? std::optional(*options_.deadline + std::chrono::seconds(5))
                           : std::nullopt;
    const auto* flag = &b.wanted;
    const bool statistics = options_.pipeline_statistics;
    const worker::PipelineLayout layout{buffers, dims, sets, options_.check_bounds};
    b.compiling = std::async(std::launch::async, [=, &templates] {
      if (workers) {
        prepare_in_workers(*candidates, *workers, templates, layout, limit, flag);
      } else {
        compile_all(*candidates, templates, 1);
      }
      create_pipelines(*candidates, *device, layout, attempts, statistics);
    });
  }
}

bool TuneSession::Evaluation::ready(std::size_t index) const {
  const auto known = prepared_.find(space_->config(index));
  if (known == prepared_.end()) return false;
  const auto& compiling = known->second->compiling;
  return !compiling.valid() || compiling.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

std::optional<double> TuneSession::Evaluation::defer(std::size_t index) {
  // A check (nothing timed) validates every variant it hands out, spilling or not.
  if (!options_.pipeline_statistics || !options_.time_variants || !ready(index)) return std::nullopt;
  const auto known = prepared_.find(space_->config(index));
  bool spills = false;
  double seconds = 0;
  for (const auto& c : known->second->candidates) {
    spills = spills || vk::spill_measure(c.statistics, statistics_floor_) > 0;
    seconds += (c.compile_ms + c.pipeline_ms) / 1000;
  }
  if (!spills) return std::nullopt;
  return seconds;
}

void TuneSession::Evaluation::wait_a_moment() {
  const auto start = Clock::now();
  heater_.stop();
  if (!heater_.keep_busy(*session_.device_, *on_device_, shape_)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  result_.compile_wait_seconds += ms_since(start) / 1000;
}

Observation TuneSession::Evaluation::evaluate(std::size_t index) {
  const auto& outcome = evaluate_config(space_->config(index));
  return {index,
          outcome.status == results::Status::ok && options_.time_variants ? std::optional<double>(outcome.timing.median)
                                                                          : std::nullopt,
          outcome.status, outcome.durations.total_ms() / 1000.0};
}

const Outcome& TuneSession::Evaluation::evaluate_config(const kernels::Config& config) {
  heater_.stop();
  result_.heater_runs = heater_.runs();
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

Candidate& TuneSession::Evaluation::find(const kernels::Config& config) {
  for (auto& b : compiles_) {
    for (auto& c : b.candidates) {
      if (c.variant.config != config) continue;
      if (b.compiling.valid()) {
        const auto start = Clock::now();
        if (b.compiling.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
          session_.progress_.step(c.previous ? "preparing" : "compiling");
        }
        // While the driver still compiles it, the last variant keeps the
        // GPU busy (tuner/gpu_heater.hpp).
        while (b.compiling.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
          if (!heater_.keep_busy(*session_.device_, *on_device_, shape_)) {
            b.compiling.wait();
            break;
          }
        }
        b.compiling.get();
        result_.compile_wait_seconds += ms_since(start) / 1000;
      }
      return c;
    }
  }
  throw Error(ErrorKind::internal, "evaluation of a config that was never prepared");
}

Outcome TuneSession::Evaluation::measure(Candidate& c) {
  try {
    return measure_and_record(c);
  } catch (...) {
    // The run ends on an error it handled (the result could not be stored:
    // a full disk; or something not a variant's failure, as bad_alloc): the
    // variant did not crash the process, so its attempt row goes, or the
    // next run would record it as crashed and never try it again.
    if (attempts_) attempts_->forget(c.variant);
    throw;
  }
}

Outcome TuneSession::Evaluation::measure_and_record(Candidate& c) {
  Outcome o;
  o.config = c.variant.config;
  o.variant_hash = c.variant.variant_hash;
  o.is_baseline = c.is_baseline;
  o.durations.compile_ms = c.compile_ms;
  try {
    run_on_device(c, o);
  } catch (const Error& e) {
    o.status = status_for(e.kind());
    o.reason = e.what();
    if (!session_.device_->usable()) recover_device();
  }
  if (session_.store_ && options_.time_variants) {
    session_.record(kernel_, c.variant, o, shape_text_, options_.cache_mode);
  }
  return o;
}

void TuneSession::Evaluation::run_on_device(Candidate& c, Outcome& o) {
  auto& device = *session_.device_;
  if (c.compile_error) throw *c.compile_error;
  if (session_.store_) cache_spirv(c.variant, *session_.store_);
  // Replaced by the result below; left behind only if the process dies.
  if (attempts_) attempts_->begin(c.variant, "running it on the device");
  std::unique_ptr<VariantRunner> runner;
  // Made on the compile thread (or refused there, or by its worker, which
  // never made it on any device): as it came.
  if (c.runner_device == &device || (c.pipeline_error && !c.runner_device)) {
    o.durations.pipeline_ms = c.pipeline_ms;
    if (c.pipeline_error) throw *c.pipeline_error;
    if (c.cached_pipeline_ms > 0) result_.cached_pipeline_ms.push_back(c.cached_pipeline_ms);
    runner = std::move(c.runner);
    o.statistics = c.statistics;
  } else {  // the device was reopened since
    AddElapsed clock{o.durations.pipeline_ms};
    runner = std::make_unique<VariantRunner>(device, c.variant, static_cast<std::uint32_t>(problem_.buffers.size()),
                                             static_cast<std::uint32_t>(kernel_.shape_dims().size()),
                                             copies_ + 2 + static_cast<std::uint32_t>(more_.size()), false,
                                             options_.pipeline_statistics, options_.check_bounds);
    o.statistics = runner->statistics();
  }
  {
    session_.progress_.step("validating");
    AddElapsed clock{o.durations.validation_ms};
    test_hooks::before_dispatch();
    const auto tolerance = kernel_.variant_tolerance(c.variant.config, shape_);
    auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(test_hooks::validation_timeout().value_or(
        device.info().is_cpu() ? vk::kCpuDriverTimeout : vk::kDefaultTimeout));
    // --time is a bound: a variant that runs past it (and 5 s more) is a
    // timeout, not a reason to overrun the run's budget. The baseline always
    // runs, as in prepare_configs().
    if (options_.deadline && !c.is_baseline) {
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(*options_.deadline - Clock::now()) +
                        std::chrono::seconds(5);
      timeout = std::min(timeout, std::max(left, std::chrono::nanoseconds(std::chrono::seconds(2))));
    }
    o.validation = validate_further(*runner, more_, tolerance, timeout,
                                    runner->validate(*on_device_, problem_, tolerance, timeout));
  }
  if (!o.validation.passed) {
    throw Error(o.validation.out_of_bounds ? ErrorKind::out_of_bounds : ErrorKind::wrong_result,
                o.validation.reason);
  }
  if (!options_.time_variants) return;
  session_.progress_.step("timing");
  const auto timed = runner->time(*on_device_, shape_, options_.timer);
  o.timing = timed.per_dispatch_ns;
  o.durations.warmup_ms = timed.warmup_ms;
  o.durations.timing_ms = timed.timing_ms;
  o.clock_ratio = timed.clock_ratio;
  o.clock_given_up = timed.clock_given_up;
  o.gbps = metrics_.bytes / o.timing.median;
  o.gflops = metrics_.flops / o.timing.median;
  if (options_.keep_device_busy.value_or(!device.info().is_cpu())) {
    heater_.arm(std::move(runner), device, o.timing.median);
  }
}

void TuneSession::Evaluation::recover_device() {
  on_device_.reset();
  session_.reopen_device();
  on_device_ = std::make_unique<DeviceProblem>(*session_.device_, problem_, copies_);
  more_.upload(*session_.device_);
}

}  // namespace vktune
