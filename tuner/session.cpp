#include "tuner/session.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "tuner/device_problem.hpp"
#include "tuner/evaluator.hpp"
#include "tuner/strategy.hpp"
#include "tuner/variant.hpp"

namespace vktune {

namespace {

using Clock = std::chrono::steady_clock;

results::Status status_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::compile: return results::Status::compile_error;
    case ErrorKind::pipeline: return results::Status::pipeline_error;
    case ErrorKind::device_limit: return results::Status::device_limit;
    case ErrorKind::wrong_result: return results::Status::wrong_result;
    case ErrorKind::timeout: return results::Status::timeout;
    case ErrorKind::device_lost: return results::Status::device_lost;
    default: return results::Status::error;
  }
}

struct Candidate {
  CompiledVariant variant;
  bool is_baseline = false;
  std::optional<results::Measurement> previous;  // measured by an earlier run
  std::optional<Error> compile_error;
};

// Compiles every candidate that needs SPIR-V, `threads` at a time.
void compile_all(std::vector<Candidate>& batch, const TemplateLibrary& templates, unsigned threads) {
  std::vector<Candidate*> todo;
  for (auto& c : batch)
    if (!c.previous && c.variant.spirv.empty()) todo.push_back(&c);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      try {
        compile_variant(todo[i]->variant, templates);
      } catch (const Error& e) {
        todo[i]->compile_error = e;
      }
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

std::string dispatch_json(const kernels::DispatchRule& rule) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : rule) axes.push_back({{"shape_dim", a.shape_dim}, {"divisor", a.divisor}});
  return axes.dump();
}

}  // namespace

std::size_t ShapeResult::failures() const {
  return static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(),
                                                [](const Outcome& o) { return o.status != results::Status::ok; }));
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
                         const std::string& shape_text, const std::string& cache_mode) {
  store_->transaction([&] {
    store_->upsert_variant({variant.variant_hash, kernel.name(), variant.plan.template_file,
                            kernels::config_to_json(variant.config), variant.template_hash, vk::compiler_version()});
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
    store_->record_measurement(m);
  });
}

void TuneSession::confirm(const kernels::Kernel& kernel, const kernels::Problem& problem, DeviceProblem& on_device,
                          const TuneOptions& options, ShapeResult& result) {
  // The candidates: the fastest few, and the baseline.
  std::vector<std::size_t> picked;
  for (std::size_t i = 0; i < result.outcomes.size(); ++i)
    if (result.outcomes[i].status == results::Status::ok) picked.push_back(i);
  std::sort(picked.begin(), picked.end(), [&](std::size_t a, std::size_t b) {
    return result.outcomes[a].timing.median < result.outcomes[b].timing.median;
  });
  if (picked.size() > options.confirm_top) picked.resize(options.confirm_top);
  if (result.baseline && result.outcomes[*result.baseline].status == results::Status::ok &&
      std::find(picked.begin(), picked.end(), *result.baseline) == picked.end()) {
    picked.push_back(*result.baseline);
  }
  if (picked.size() < 2) return;

  const auto shape_text = kernels::shape_to_string(result.shape);
  const auto metrics = kernel.metrics(result.shape);
  std::vector<CompiledVariant> variants;
  std::vector<std::unique_ptr<VariantRunner>> runners;
  try {
    for (std::size_t i : picked) {
      variants.push_back(describe_variant(kernel, result.outcomes[i].config, result.shape, templates_));
      auto& v = variants.back();
      if (store_) {
        if (auto cached = store_->get_spirv(v.variant_hash)) v.spirv = std::move(*cached);
      }
      if (v.spirv.empty()) compile_variant(v, templates_);
    }
    for (auto& v : variants) {
      runners.push_back(std::make_unique<VariantRunner>(*device_, v, static_cast<std::uint32_t>(problem.buffers.size()),
                                                        static_cast<std::uint32_t>(kernel.shape_dims().size()),
                                                        on_device.copies() + 2));
    }
    std::vector<std::vector<double>> samples(picked.size());
    for (int round = 0; round < std::max(1, options.confirm_rounds); ++round) {
      for (std::size_t j = 0; j < picked.size(); ++j) {
        auto timing = runners[j]->time(on_device, result.shape, options.timer);
        samples[j].insert(samples[j].end(), timing.samples_ns.begin(), timing.samples_ns.end());
      }
    }
    for (std::size_t j = 0; j < picked.size(); ++j) {
      auto& o = result.outcomes[picked[j]];
      const double searched_ns = o.timing.median;
      o.timing = vk::compute_stats(samples[j]);
      if (result.baseline && picked[j] == *result.baseline && searched_ns > 0) {
        result.drift = o.timing.median / searched_ns;
        if (*result.drift > 1.25 || *result.drift < 0.8) {
          progress_.message("warning: the baseline took " + std::to_string(searched_ns / 1e3) + " us at the start and " +
                            std::to_string(o.timing.median / 1e3) +
                            " us at the end: the device's speed changed during the run (clocks, other work on the "
                            "GPU?); compare results with care");
        }
      }
      o.gbps = metrics.bytes / o.timing.median;
      o.gflops = metrics.flops / o.timing.median;
      o.confirmed = true;
      if (store_) record(kernel, variants[j], o, shape_text, options.cache_mode);
    }
  } catch (const Error& e) {
    // The search results stand; the confirmation is an improvement, not a
    // requirement.
    progress_.message("confirmation pass skipped: " + std::string(e.what()));
    return;
  }
  result.winner = *std::min_element(picked.begin(), picked.end(), [&](std::size_t a, std::size_t b) {
    return result.outcomes[a].timing.median < result.outcomes[b].timing.median;
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

ShapeResult TuneSession::run(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options,
                             std::vector<kernels::Config> explicit_configs, bool use_explicit) {
  kernel.validate_shape(shape);
  const std::string shape_text = kernels::shape_to_string(shape);
  ShapeResult result;
  result.shape = shape;
  const auto space = enumerate_space(kernel, shape, device_->info());
  result.space_name = space.space_name;
  result.space_total = space.total;
  result.space_filtered = space.filtered;
  result.space_valid = space.valid.size();
  auto candidates = space.valid;
  if (!options.only.empty()) {
    candidates = select_only(kernel, shape, space.valid, options.only);
    result.space_selected = candidates.size();
  }

  // What to evaluate, in order: the baseline first, then the proposals.
  std::vector<kernels::Config> order;
  if (use_explicit) {
    order = std::move(explicit_configs);
  } else {
    const auto baseline = kernel.baseline(shape);
    order.push_back(baseline);
    auto strategy = make_strategy(options.strategy, candidates, options.seed);
    std::size_t proposed = 0;
    while (auto config = strategy->next()) {
      if (options.budget && proposed >= *options.budget) {
        result.stopped_early = true;
        break;
      }
      if (*config == baseline) continue;
      order.push_back(std::move(*config));
      ++proposed;
    }
  }

  const auto problem = kernel.make_problem(shape, options.seed);
  const auto metrics = kernel.metrics(shape);
  std::uint64_t weight_bytes = 0;
  for (const auto& b : problem.buffers)
    if (b.is_weights) weight_bytes += b.bytes.size();
  const std::uint32_t copies = options.cache_mode == "cold" && options.time_variants
                                   ? cold_cache_copies(weight_bytes, device_->info().device_local_bytes())
                                   : 1;
  auto on_device = std::make_unique<DeviceProblem>(*device_, problem, copies);
  const auto buffer_count = static_cast<std::uint32_t>(problem.buffers.size());
  const auto dims = static_cast<std::uint32_t>(kernel.shape_dims().size());

  const unsigned threads = options.compile_threads ? options.compile_threads
                                                   : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t batch_size = std::max<std::size_t>(4, 2 * threads);
  progress_.start(kernel.name() + " " + shape_text, order.size());
  std::optional<double> best_ns;
  auto out_of_time = [&] { return options.deadline && Clock::now() >= *options.deadline; };

  bool out_of_budget_time = false;
  for (std::size_t start = 0; start < order.size() && !out_of_budget_time; start += batch_size) {
    std::vector<Candidate> batch;
    for (std::size_t i = start; i < std::min(order.size(), start + batch_size); ++i) {
      Candidate c;
      c.variant = describe_variant(kernel, order[i], shape, templates_);
      c.is_baseline = !use_explicit && i == 0;
      if (store_ && options.time_variants) {
        c.previous = store_->find_measurement(*device_row_, c.variant.variant_hash, shape_text, options.cache_mode);
      }
      if (!c.previous && store_) {
        if (auto cached = store_->get_spirv(c.variant.variant_hash)) c.variant.spirv = std::move(*cached);
      }
      batch.push_back(std::move(c));
    }
    compile_all(batch, templates_, threads);

    for (auto& c : batch) {
      // The baseline always runs, so the speedup can be reported.
      if (!c.is_baseline && out_of_time()) {
        result.stopped_early = out_of_budget_time = true;
        break;
      }
      if (c.previous) {
        result.outcomes.push_back(from_measurement(*c.previous, c.variant.config, c.is_baseline));
      } else {
        Outcome o;
        o.config = c.variant.config;
        o.variant_hash = c.variant.variant_hash;
        o.is_baseline = c.is_baseline;
        try {
          if (c.compile_error) throw *c.compile_error;
          if (store_) store_->put_spirv(c.variant.variant_hash, c.variant.spirv);
          VariantRunner runner(*device_, c.variant, buffer_count, dims, copies + 2);
          o.validation = runner.validate(*on_device, problem, kernel.variant_tolerance(c.variant.config, shape),
                                         device_->info().is_cpu() ? vk::kCpuDriverTimeout : vk::kDefaultTimeout);
          if (!o.validation.passed) throw Error(ErrorKind::wrong_result, o.validation.reason);
          if (options.time_variants) {
            o.timing = runner.time(*on_device, shape, options.timer).per_dispatch_ns;
            o.gbps = metrics.bytes / o.timing.median;
            o.gflops = metrics.flops / o.timing.median;
          }
        } catch (const Error& e) {
          o.status = status_for(e.kind());
          o.reason = e.what();
          if (!device_->usable()) {
            on_device.reset();
            reopen_device();
            on_device = std::make_unique<DeviceProblem>(*device_, problem, copies);
          }
        }
        if (store_ && options.time_variants) record(kernel, c.variant, o, shape_text, options.cache_mode);
        result.outcomes.push_back(std::move(o));
      }
      const auto& last = result.outcomes.back();
      if (c.is_baseline) result.baseline = result.outcomes.size() - 1;
      if (last.status == results::Status::ok && options.time_variants &&
          (!best_ns || last.timing.median < *best_ns)) {
        best_ns = last.timing.median;
        result.winner = result.outcomes.size() - 1;
      }
      progress_.update(result.outcomes.size(), result.failures(),
                       best_ns ? std::optional<double>(*best_ns / 1000.0) : std::nullopt);
    }
  }
  progress_.finish();
  if (options.time_variants && options.confirm_top > 0 && result.winner) {
    confirm(kernel, problem, *on_device, options, result);
  }

  // The stored winner is replaced only by a faster variant (or re-measured
  // itself): a short or restricted run (--budget, --only) must not undo what a
  // longer one found.
  std::optional<results::Winner> stored;
  if (store_ && options.time_variants && result.winner) {
    stored = store_->find_winner(*device_row_, kernel.name(), shape_text, options.cache_mode);
    const auto& w = result.outcomes[*result.winner];
    if (stored && stored->variant_hash != w.variant_hash && stored->median_ns < w.timing.median) {
      result.kept_stored_winner_ns = stored->median_ns;
    }
  }
  if (store_ && options.time_variants && result.winner && !result.kept_stored_winner_ns) {
    const auto& w = result.outcomes[*result.winner];
    auto variant = describe_variant(kernel, w.config, shape, templates_);
    auto spirv = store_->get_spirv(variant.variant_hash);
    if (!spirv) {
      compile_variant(variant, templates_);
      spirv = variant.spirv;
    }
    results::Winner winner;
    winner.device_id = *device_row_;
    winner.kernel = kernel.name();
    winner.shape = shape_text;
    winner.cache_mode = options.cache_mode;
    winner.variant_hash = w.variant_hash;
    winner.config_json = kernels::config_to_json(w.config);
    winner.spirv = std::move(*spirv);
    winner.specialization_json = "{}";
    for (int i = 0; i < 3; ++i) winner.local_size[i] = variant.plan.local_size[i];
    winner.dispatch_json = dispatch_json(variant.plan.dispatch);
    winner.required_subgroup_size = variant.plan.required_subgroup_size;
    winner.median_ns = w.timing.median;
    winner.gbps = w.gbps;
    winner.gflops = w.gflops;
    winner.rel_l2_error = w.validation.rel_l2;
    if (result.baseline) {
      winner.baseline_variant_hash = result.outcomes[*result.baseline].variant_hash;
      winner.baseline_median_ns = result.outcomes[*result.baseline].timing.median;
    }
    store_->set_winner(winner);
  }
  return result;
}

}  // namespace vktune
