#pragma once
// The session's evaluation of one shape (private to tuner/session*.cpp):
// prepare() looks up stored results and starts compiling a batch in the
// background; evaluate() validates and times one config on the device
// (strictly one at a time), records the outcome and reports it to the search.
#include <cstdint>
#include <future>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/attempt_log.hpp"
#include "engine/device_problem.hpp"
#include "engine/validation_inputs.hpp"
#include "tuner/candidate.hpp"
#include "tuner/gpu_heater.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/session.hpp"

namespace vktune {

class TuneSession::Evaluation final : public BatchEvaluator {
 public:
  Evaluation(TuneSession& session, const kernels::Kernel& kernel, const kernels::Shape& shape,
             const TuneOptions& options, const kernels::Problem& problem, std::unique_ptr<DeviceProblem>& on_device,
             ValidationInputs& more, std::uint32_t copies, ShapeResult& result);
  ~Evaluation() override;

  // The configs behind the indices a search hands out.
  void bind(const SearchSpace* space) { space_ = space; }

  // While the strategy fits its model, the last timed variant keeps the GPU
  // busy on another thread (the only one using the queue until prepare()).
  void before_proposal() override;
  void prepare(const std::vector<std::size_t>& batch) override;
  // Compiles ahead in the background, behind every prepared config's
  // compile (WorkerPool::run's `wanted`); a later prepare() finds them.
  void speculate(const std::vector<std::size_t>& likely) override;
  Observation evaluate(std::size_t index) override;
  bool ready(std::size_t index) const override;
  void wait_a_moment() override;
  std::optional<double> defer(std::size_t index) override;

  // Starts compiling the configs not prepared before, each on its own
  // thread, so that a config waits for its own compile only. `wanted`:
  // false for configs only compiled ahead (speculate()).
  void prepare_configs(const std::vector<kernels::Config>& configs, bool is_baseline, bool wanted = true);
  // Validates (and times) a prepared config; the outcome joins the result.
  const Outcome& evaluate_config(const kernels::Config& config);

 private:
  struct PendingCompile {  // one config, compiling on its own thread
    std::vector<Candidate> candidates;
    std::future<void> compiling;
    std::atomic<bool> wanted{true};  // false while it is only a guess (speculate())
  };

  // The prepared candidate of `config`, once its compile has finished.
  Candidate& find(const kernels::Config& config);
  // Runs `c` and records its outcome; on an error that ends the run, its
  // attempt row is forgotten first.
  Outcome measure(Candidate& c);
  Outcome measure_and_record(Candidate& c);
  // Validates and times `c` on the device into `o`; throws the variant's failure.
  void run_on_device(Candidate& c, Outcome& o);
  // After a failure that left the device unusable: opens it again and
  // uploads the inputs there.
  void recover_device();

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
  std::map<kernels::Config, PendingCompile*> prepared_;
  std::optional<double> best_ns_;
  // The driver's statistics of a pipeline that spills nothing: what a
  // variant's spills are read against (defer()).
  std::vector<vk::PipelineStatistic> statistics_floor_;
  GpuHeater heater_;  // the last timed variant, between measurements
};

}  // namespace vktune
