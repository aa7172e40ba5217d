#include "tuner/candidate.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <thread>

#include "engine/elapsed.hpp"

namespace vktune {

// Creates the pipeline of each compiled candidate that is to be measured.
void create_pipelines(std::vector<Candidate>& batch, vk::Device& device, const worker::PipelineLayout& layout,
                      AttemptLog* attempts, bool capture_statistics) {
  for (auto& c : batch) {
    if (c.previous || c.compile_error || c.pipeline_error) continue;
    const auto start = Clock::now();
    if (attempts) attempts->begin(c.variant, "creating its pipeline");
    try {
      c.runner = std::make_unique<VariantRunner>(device, c.variant, layout.buffers, layout.shape_dims,
                                                 layout.descriptor_sets, false, capture_statistics,
                                                 layout.check_bounds);
      c.statistics = c.runner->statistics();
    } catch (const Error& e) {
      c.pipeline_error = e;
    } catch (const std::exception& e) {  // e.g. bad_alloc: the variant's failure, not the run's
      c.pipeline_error = Error(ErrorKind::pipeline, std::string("pipeline creation failed: ") + e.what());
    }
    if (attempts) attempts->end(c.variant);  // the process survived it
    c.runner_device = &device;
    const double here_ms = ms_since(start);
    c.pipeline_ms += here_ms;
    if (!c.variant.stages.empty() && !c.variant.stages[0].pipeline_cache.empty()) c.cached_pipeline_ms = here_ms;
  }
}

void prepare_in_workers(std::vector<Candidate>& batch, WorkerPool& pool, const TemplateLibrary& templates,
                        const worker::PipelineLayout& layout,
                        std::optional<std::chrono::steady_clock::time_point> limit,
                        const std::atomic<bool>* wanted) {
  for (auto& c : batch) {
    if (c.previous) continue;
    WorkerPool::Durations durations;
    try {
      pool.run(c.variant, templates, layout, durations, limit, wanted);
    } catch (const Error& e) {
      // Which phase failed decides where the failure belongs: a variant
      // that compiled but whose pipeline failed keeps its SPIR-V.
      const bool compile_failed = !c.variant.compiled();
      (compile_failed ? c.compile_error : c.pipeline_error) = e;
    }
    c.compile_ms = durations.compile_ms;
    c.pipeline_ms = durations.pipeline_ms;
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


}  // namespace vktune
