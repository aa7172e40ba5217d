#pragma once
// A config on its way to the device: its variant, the SPIR-V compiled for it
// and the pipeline created from it (or why either failed), or the
// measurement an earlier run stored for it.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "engine/attempt_log.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "engine/worker_pool.hpp"
#include "harness/device.hpp"
#include "results/records.hpp"
#include "tuner/outcome.hpp"

namespace vktune {

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
  // Of pipeline_ms, the part spent creating it here from the pipeline cache
  // its worker returned (a driver cache hit); 0 without a worker.
  double cached_pipeline_ms = 0;
  const vk::Device* runner_device = nullptr;
  // What the driver made of the pipeline, where it says (create_pipelines'
  // capture_statistics).
  std::vector<vk::PipelineStatistic> statistics;
};

// Compiles every candidate that needs SPIR-V, `threads` at a time; a
// compile's failure is recorded against its candidate.
void compile_all(std::vector<Candidate>& batch, const TemplateLibrary& templates, unsigned threads);

// Compiles every candidate that is to be measured and creates its pipeline
// in `pool`'s worker processes (engine/worker_pool.hpp), one after another,
// each within its deadline and never past `limit`; a failure of either is
// recorded against its candidate. create_pipelines() then creates the
// pipelines here from the caches the workers returned. `wanted`: as
// WorkerPool::run takes it (null: to be measured).
void prepare_in_workers(std::vector<Candidate>& batch, WorkerPool& pool, const TemplateLibrary& templates,
                        const worker::PipelineLayout& layout,
                        std::optional<std::chrono::steady_clock::time_point> limit,
                        const std::atomic<bool>* wanted = nullptr);

// Creates the pipeline of each compiled candidate that is to be measured, as
// `layout` says; with `capture_statistics`, reads its statistics where the
// device offers them.
void create_pipelines(std::vector<Candidate>& batch, vk::Device& device, const worker::PipelineLayout& layout,
                      AttemptLog* attempts, bool capture_statistics = false);

// The outcome an earlier run stored, as this run reports it (resumed).
Outcome from_measurement(const results::Measurement& m, const kernels::Config& config, bool is_baseline);

}  // namespace vktune
