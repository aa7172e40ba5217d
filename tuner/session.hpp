#pragma once
// The evaluate loop: for one kernel and shape, propose configs with a
// strategy, compile them in parallel, then validate and time them strictly
// one at a time on the device, recording every outcome (failures with their
// reason) in the store as it completes. A killed run resumes: variants
// already measured for this device, driver and variant hash are skipped.
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/cache_mode.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "common/error.hpp"
#include "harness/timer.hpp"
#include "kernels/kernel.hpp"
#include "results/store.hpp"
#include "tuner/confirmation.hpp"
#include "tuner/outcome.hpp"
#include "tuner/progress_observer.hpp"
#include "engine/device_identity.hpp"
#include "engine/worker_pool.hpp"
#include "tuner/space.hpp"
#include "engine/template_library.hpp"
#include "engine/validation.hpp"
#include "engine/variant.hpp"

namespace vktune {

class DeviceProblem;
class ValidationInputs;

struct TuneOptions {
  // A registered strategy's name; "" picks `model` when the search is bounded
  // (budget, time, target, convergence) or the space holds more than
  // kExhaustiveUpTo configs, else `exhaustive`.
  std::string strategy;
  std::optional<std::size_t> budget;  // variants per shape, the baseline not counted
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // With a deadline: an earlier one for the search, given the time it starts
  // (once the shape's setup is known: how --time shares one budget among
  // shapes, tuner/time_share.hpp).
  std::function<std::chrono::steady_clock::time_point(std::chrono::steady_clock::time_point)> search_deadline;
  std::optional<double> target_ns;  // stop once within target_within of this
  double target_within = 0;
  std::optional<std::size_t> converge;  // stop after this many variants without a faster one
  // Before searching, evaluate the stored winners and best variants of the
  // nearest tuned shapes (this device, then devices of the same model).
  bool transfer = true;
  std::size_t batch_size = 4;  // configs a strategy proposes at a time
  std::uint64_t seed = 1;  // each shape derives its own from this and the shape
  CacheMode cache_mode = CacheMode::cold;  // cold rotates weight copies; hot reuses one
  vk::TimerOptions timer;
  bool time_variants = true;  // false: validate only (the check command)
  // Make the final check's inputs and full references on a thread beside the
  // search rather than after it; unset: on a GPU, not on a CPU driver (whose
  // timings that work would skew).
  std::optional<bool> final_check_beside_search;
  // Keep the device busy with the last timed variant's work while the next
  // compiles and the strategy proposes (tuner/gpu_heater.hpp); unset: on a
  // GPU, not on a CPU driver (no clock to hold up, and the work would take
  // the cores the compiles need). Tests set it to reach the heater on
  // lavapipe.
  std::optional<bool> keep_device_busy;
  // After the search, every variant within `confirm_within` of the fastest
  // search time (at least the `confirm_top` fastest, at most `confirm_max`)
  // is timed again `confirm_rounds` times, each time right after the
  // baseline, so that a drift in the device's speed during a long search
  // (clocks, other tenants) cannot pick the winner or distort the speedup
  // (tuner/confirmation.hpp). Each re-timed variant gets a 'confirm' row in
  // the store beside its 'search' row. confirm_top = 0 turns it off.
  std::size_t confirm_top = kConfirmAtLeast;
  double confirm_within = kConfirmWithin;
  std::size_t confirm_max = kConfirmAtMost;
  int confirm_rounds = 3;
  // Search only configs whose parameter NAME takes one of these values
  // (`--only NAME=V,...`), e.g. to compare one template's variants.
  std::map<std::string, std::vector<int>> only;
  // `--space`: pruned (the kernel's pruning rules for this device) or full.
  SpaceScope space = SpaceScope::pruned;
  // Why to stop now (e.g. "interrupted by SIGINT"), asked before each
  // variant: the search ends after the variant in flight, and the shape
  // skips its confirmation pass and stores no winner. Unset: never.
  std::function<std::optional<std::string>()> interrupted;
  // Read each variant's pipeline statistics where the driver offers them
  // (VK_KHR_pipeline_executable_properties), store them, and evaluate a
  // config whose code spills only once the search has nothing else left.
  bool pipeline_statistics = true;
  // Validate with bounds-instrumented modules (engine/evaluator.hpp's
  // check_bounds): any storage-buffer access past a binding's data fails the
  // variant. For checks, not tunes: the instrumented code is slower and is
  // not what would be timed.
  bool check_bounds = false;
};

// Up to this many valid configs a search without bounds is exhaustive.
inline constexpr std::size_t kExhaustiveUpTo = 256;

// The status a variant's failure is recorded with.
results::Status status_for(ErrorKind kind);

class TuneSession {
 public:
  // `store` may be null (check without a database).
  TuneSession(vk::Instance& instance, std::uint32_t device_index, results::Store* store,
              const TemplateLibrary& templates, ProgressObserver& progress);

  vk::Device& device() { return *device_; }
  // Compile and create pipelines in `workers`' processes from now on
  // (engine/worker_pool.hpp); null: in this process, as tests and library
  // callers without a worker program do.
  void isolate(WorkerPool* workers) { workers_ = workers; }
  std::optional<std::int64_t> device_row() const { return device_row_; }

  // Tunes the shape: baseline first, then the strategy's proposals.
  ShapeResult tune(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options);
  // Validates exactly `configs` (no timing, nothing stored); with
  // `check_bounds`, on bounds-instrumented modules (TuneOptions::check_bounds).
  ShapeResult check(const kernels::Kernel& kernel, const kernels::Shape& shape,
                    const std::vector<kernels::Config>& configs, std::uint64_t seed, bool check_bounds = false);

 private:
  class Evaluation;
  friend class Evaluation;
  ShapeResult run(const kernels::Kernel& kernel, const kernels::Shape& shape, const TuneOptions& options,
                  std::vector<kernels::Config> explicit_configs, bool use_explicit);
  // The strategy's search of `candidates`, the baseline first; starts the
  // final check's inputs beside it where that is wanted.
  void search(Evaluation& evaluation, const kernels::Kernel& kernel, const kernels::Shape& shape,
              const TuneOptions& options, ConfigList candidates,
              std::chrono::steady_clock::time_point run_start, ShapeResult& result,
              std::future<std::unique_ptr<ValidationInputs>>& final_inputs);
  // Configs to evaluate first: the best of the nearest tuned shapes.
  std::vector<kernels::Config> transfer_seeds(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                              CacheMode cache_mode, std::vector<std::string>& from) const;
  // Where this device has no winner of its own for the shape, the fastest
  // that another device of its model stored for it (an imported table's,
  // the one a step would serve here), completed to today's parameters and
  // legal on this device; `from` names that device.
  std::optional<kernels::Config> served_winner(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                               CacheMode cache_mode, std::string& from) const;
  void reopen_device();
  // Gives the device the clock gauge its timer reads where the timer follows
  // the clock (vk::TimerOptions::watch_clock); without one (a driver that
  // will not build it) the timer goes by idle gaps.
  void watch_clock(const vk::TimerOptions& timer);
  void record(const kernels::Kernel& kernel, const CompiledVariant& variant, const Outcome& outcome,
              const std::string& shape_text, CacheMode cache_mode, results::Phase phase = results::Phase::search);
  void confirm(const kernels::Kernel& kernel, const kernels::Problem& problem, DeviceProblem& on_device,
               const TuneOptions& options, ShapeResult& result);
  // Where the winner runs several stages, times each of them in launches of
  // its own after the confirmation (tuner/session_stages.cpp) into
  // result.winner_stages; a device that cannot time them leaves it empty.
  void time_winner_stages(const kernels::Kernel& kernel, const kernels::Problem& problem, DeviceProblem& on_device,
                          const TuneOptions& options, ShapeResult& result);
  // Checks the winner again before it is stored (tuner/session_final_check.cpp):
  // full references, repeated runs, fresh and adversarial inputs; a winner
  // that fails is recorded as failed and the next fastest is checked.
  // `beside`: its inputs being made beside the search
  // (final_check_inputs_beside), else (not valid) they are made here.
  void final_check(const kernels::Kernel& kernel, const TuneOptions& options, ShapeResult& result,
                   std::future<std::unique_ptr<ValidationInputs>> beside = {});
  // The final check's inputs and full references, made on a thread of their
  // own (TuneOptions::final_check_beside_search).
  std::future<std::unique_ptr<ValidationInputs>> final_check_inputs_beside(const kernels::Kernel& kernel,
                                                                           const kernels::Shape& shape,
                                                                           std::uint64_t seed) const;
  // Stores the shape's winner and its launch contract (tuner/session_winner.cpp),
  // unless the stored one is faster.
  void store_winner(const kernels::Kernel& kernel, const kernels::Shape& shape, const std::string& shape_text,
                    const TuneOptions& options, ShapeResult& result);

  vk::Instance& instance_;
  std::uint32_t device_index_;
  std::unique_ptr<vk::Device> device_;
  std::vector<std::unique_ptr<vk::Device>> abandoned_;  // unusable devices, kept (not destroyed) on purpose
  results::Store* store_;
  std::optional<std::int64_t> device_row_;
  const TemplateLibrary& templates_;
  ProgressObserver& progress_;
  WorkerPool* workers_ = nullptr;
};

// One line on what the confirmation pass did to the search's best: the
// same winner at its re-timed time, or another winner and both times.
std::string confirmation_summary(const ShapeResult& result, std::size_t finalists);

// A shape's own seed: runs over several shapes sample each differently.
std::uint64_t shape_seed(std::uint64_t seed, const kernels::Shape& shape);


}  // namespace vktune
