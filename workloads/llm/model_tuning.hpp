#pragma once
// Tuning every op of a model under one time budget (`vktune model`). First
// each op's baseline is timed with one searched variant beside it; then the
// time left is shared out in proportion to what tuning an op can still gain
// the model: its dispatches per token (a prefill's per prompt token) × the
// gap between its best time so far and its floor (the shape's least bytes at
// the read ceiling or FLOPs at the FMA ceiling, at least one dependent
// dispatch). An op already at its floor gets no more time. Every op's
// search resumes from what is stored, so the second phase continues the
// first.
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ceilings.hpp"
#include "workloads/llm/model_ops.hpp"
#include "tuner/session.hpp"

namespace vktune::model {

struct OpResult {
  double baseline_ns = 0;
  double tuned_ns = 0;  // the stored winner's time (the baseline's when none)
  double floor_ns = 0;
  std::size_t variants = 0;  // measured for this op in this run, both phases
  bool winner = false;       // a validated winner was found
  double seconds = 0;        // spent on it
  bool reached = false;      // tune_model came to it before its budget ran out
};

struct ModelTuneOptions {
  TuneOptions tune;  // seed, cache mode, interruption; budget and deadline are set per phase
  std::chrono::steady_clock::time_point deadline;
  std::uint32_t prompt = 0;  // prefill length (0: decode only)
  // At most this many variants per op beside its baseline, both phases
  // together (the first phase takes one); none: the deadline alone ends it.
  std::optional<std::size_t> budget;
};

// The floor of one op at `shape` on a device with these ceilings, ns: its
// least bytes at the read bandwidth, its FLOPs at the fastest compute rate
// (the tensor cores' where the device has them), or one dependent dispatch,
// whichever is the longest.
double floor_ns(const kernels::Kernel& kernel, const kernels::Shape& shape, const Ceilings& ceilings);

// Seconds for each op: `seconds` shared in proportion to `potential`
// (zero and negative potentials get nothing).
std::vector<double> share_time(const std::vector<double>& potential, double seconds);

// Weight of an op in a token's time: decode dispatches per token plus prefill
// dispatches per prompt token.
double per_token_weight(const ModelOp& op, std::uint32_t prompt);

// Tunes every op; `progress` hears each op as it starts. Stops early when
// options.tune.interrupted says so (the results so far are returned).
std::vector<OpResult> tune_model(TuneSession& session, const std::vector<ModelOp>& ops, const Ceilings& ceilings,
                                 const ModelTuneOptions& options,
                                 const std::function<void(const std::string&)>& progress);

}  // namespace vktune::model
