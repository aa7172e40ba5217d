#pragma once
// Isolation: every variant's compile and pipeline creation runs in a worker
// process (engine/isolated_worker.hpp) with a deadline and a memory cap, so
// that no variant can take the run down or hold it. A worker that crashes,
// passes its deadline or its memory cap is ended (SIGKILL) and replaced; the
// variant fails with compile_/pipeline_ timeout, crash or memory and the run
// goes on. Pipelines cannot cross processes: the worker returns each
// stage's VkPipelineCache data, and the tuner creates the pipeline from it
// (a cache hit in the driver).
//
// Deadlines adapt to what the run has seen: a phase's deadline is the larger
// of a fixed floor and a multiple of the median of that phase's successful
// durations so far, and never later than the caller's own limit (what is
// left of --time).
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "engine/worker_protocol.hpp"

namespace vktune {

struct IsolationSettings {
  std::string program;                  // the vktune binary to start as a worker
  std::optional<std::uint32_t> device;  // the device workers create pipelines on
  unsigned workers = 2;                 // processes at most
  double floor_seconds = 10;            // a phase's deadline is never shorter
  double median_multiple = 10;          // ... and at least this many medians
  double ceiling_seconds = 600;         // ... and never longer
  std::uint64_t memory_bytes = std::uint64_t{8} << 30;  // resident memory a worker may reach
};

// Settings for a run on `device`: the running vktune binary, one worker per
// core up to 8 (`jobs` instead when given), a floor of 10 s on a GPU and
// 120 s on a CPU device (whose compiles share its cores with the device
// itself), `floor` instead when given, and half the machine's memory (at
// most 8 GiB) per worker.
IsolationSettings isolation_settings(std::optional<std::uint32_t> device, bool cpu_device,
                                     std::optional<double> floor = std::nullopt,
                                     std::optional<unsigned> jobs = std::nullopt);

class WorkerPool {
 public:
  // Starts one worker at once: a worker that cannot start (a missing
  // program, no processes left) is an Error(io) here, before any variant.
  explicit WorkerPool(IsolationSettings settings);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  struct Durations {
    double compile_ms = 0;   // in the worker (or until it was ended)
    double pipeline_ms = 0;  // likewise; 0 without pipelines
  };
  // Compiles the stages of `variant` that have no SPIR-V and, with `layout`,
  // creates its pipelines in a worker; fills each stage's spirv and
  // pipeline_cache. Throws the variant's failure: Error(compile), Error(
  // pipeline) or Error(device_limit) as the worker reported it, or
  // compile_/pipeline_ timeout, crash or memory. `durations` is filled even
  // then. Safe to call from several threads.
  //
  // `wanted`: whether the variant is to be measured (null: it is) or only
  // compiled ahead in case it is. A job not wanted gets a worker only while
  // no wanted job waits for one, so that guesses compiled ahead never hold
  // up the batch the device waits for; a guess that becomes wanted while
  // it waits is promoted by setting its flag and calling wake().
  void run(CompiledVariant& variant, const TemplateLibrary& templates,
           const std::optional<worker::PipelineLayout>& layout, Durations& durations,
           std::optional<std::chrono::steady_clock::time_point> limit = std::nullopt,
           const std::atomic<bool>* wanted = nullptr);
  // Re-reads the waiting jobs' flags (after one was set).
  void wake();

  // The deadline a phase gets now, seconds ("compile" or "pipeline").
  double compile_deadline_seconds() const;
  double pipeline_deadline_seconds() const;
  // One line for a run's header: how many workers, the deadlines' rule, the cap.
  std::string describe() const;

 private:
  struct Process {
    pid_t pid = -1;
    int to = -1;    // the worker's stdin
    int from = -1;  // the worker's stdout
  };
  Process spawn();
  void end(Process& process);  // SIGKILL, reap, close
  Process acquire(const std::atomic<bool>* wanted);
  void release(Process process, bool healthy);
  std::uint64_t resident_bytes(pid_t pid) const;
  double deadline_seconds(const std::vector<double>& done_ms) const;

  IsolationSettings settings_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Process> idle_;
  std::vector<const std::atomic<bool>*> waiting_;  // the flags of jobs waiting for a worker
  unsigned alive_ = 0;
  std::vector<double> compile_ms_, pipeline_ms_;  // successful phases, for the deadlines
};

}  // namespace vktune
