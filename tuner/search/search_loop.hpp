#pragma once
// The order of a search, apart from how a config is evaluated: transfer
// seeds first, then the strategy's batches, each result observed as it
// arrives, until a stop condition or the space ends. The tune session drives
// it with real compiles and timings, compiling the likely next configs while
// the current batch is timed; replay drives it the same way against stored
// measurements, so replayed scores are those of a tune.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tuner/search/search_space.hpp"
#include "tuner/search/stop_condition.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune {

class SearchLoop {
 public:
  // `max_variants` caps what next_batch hands out in all (a budget), so that
  // no compile is spent past it.
  SearchLoop(const SearchSpace& space, Strategy& strategy, const StopCondition& stop, std::size_t batch_size,
             std::optional<std::size_t> max_variants = std::nullopt);

  // Indices evaluated before any proposal, in order; repeats are dropped.
  void add_seeds(const std::vector<std::size_t>& seeds);
  // A result from outside the search (the baseline): the strategy learns
  // from it and never proposes it; it counts toward nothing.
  void observe_outside(const Observation& result);

  // The next indices to evaluate: seeds first, then the strategy's
  // proposals (it has seen every result recorded so far). Empty when done.
  std::vector<std::size_t> next_batch();
  // Configs likely to be handed out after the current batch, for compiling
  // ahead: pending seeds, then the strategy's guesses.
  std::vector<std::size_t> upcoming(std::size_t count) const;
  // Why the search must stop before its next evaluation, or nothing.
  std::optional<std::string> stop_reason(std::chrono::steady_clock::time_point now) const;
  // One evaluation of the search, which the strategy observes at once:
  // count() then observe().
  void record(const Observation& result);
  // Counts an evaluation toward the stop conditions (the best, the budget,
  // convergence) without handing it to the strategy.
  void count(const Observation& result);
  // Hands a counted evaluation to the strategy. Never while next_batch()
  // runs on another thread.
  void observe(const Observation& result) { strategy_.observe({result}); }

  const SearchProgress& progress() const { return progress_; }
  // Wall seconds next_batch() spent in the strategy's propose().
  double proposal_seconds() const { return proposal_seconds_; }
  std::size_t handed_out() const { return handed_out_count_; }
  std::size_t seeds_given() const { return seeds_given_; }
  std::size_t batch_size() const { return batch_size_; }
  // The last batch handed out was transfer seeds.
  bool last_batch_was_seeds() const { return last_was_seeds_; }

  // A config handed out whose evaluation waits until nothing else is left
  // (its code spills: BatchEvaluator::defer). Safe while next_batch() runs
  // on another thread: it reads none of this.
  void defer(std::size_t index) { deferred_.push_back(index); ++deferred_count_; }
  // The first deferred config not yet taken, in the order deferred.
  std::optional<std::size_t> take_deferred();
  std::size_t deferred_count() const { return deferred_count_; }
  std::size_t deferred_left() const { return deferred_.size(); }

 private:
  bool hand_out(std::size_t index);

  std::optional<double> gain_reference_ns_;  // the best time at the last gain over kConvergenceGain

  const SearchSpace& space_;
  Strategy& strategy_;
  const StopCondition& stop_;
  std::size_t batch_size_;
  std::optional<std::size_t> max_variants_;
  std::vector<std::size_t> seeds_;
  std::size_t seeds_given_ = 0;
  std::vector<bool> handed_out_;
  std::size_t handed_out_count_ = 0;
  bool strategy_done_ = false;
  bool last_was_seeds_ = false;
  double proposal_seconds_ = 0;
  SearchProgress progress_;
  std::vector<std::size_t> deferred_;
  std::size_t deferred_count_ = 0;
};

// How the configs of a search are evaluated.
class BatchEvaluator {
 public:
  virtual ~BatchEvaluator() = default;
  // Starts getting a batch ready (compiling, possibly in the background).
  virtual void prepare(const std::vector<std::size_t>& batch) = 0;
  // Configs that may come next: get them ready in the background if that
  // is cheap; a later prepare() of them then finds them done.
  virtual void speculate(const std::vector<std::size_t>& likely) { (void)likely; }
  // Evaluates one config of a prepared batch.
  virtual Observation evaluate(std::size_t index) = 0;
  // A prepared config can be evaluated without waiting for its compile.
  virtual bool ready(std::size_t index) const {
    (void)index;
    return true;
  }
  // Nothing is ready: lets a moment pass (a few ms), the device kept busy.
  virtual void wait_a_moment() {}
  // A ready config to evaluate only when the GPU would otherwise idle or
  // nothing else is left: the driver says its code spills registers (harness/pipeline_statistics.hpp). A
  // portable signal: a statistic of the pipeline, not a rule about a GPU.
  // Returns what preparing it cost, in seconds (compile and pipeline; 0
  // when unknown), for the strategy's cost model; nothing when it is not
  // deferred.
  virtual std::optional<double> defer(std::size_t index) {
    (void)index;
    return std::nullopt;
  }
  // The batch is evaluated and the next one's proposal is still running (a
  // surrogate may take a while to fit); the next prepare() follows it.
  virtual void before_proposal() {}
};

// Runs the search as a tune does, two batches deep: while the current batch
// is evaluated, the next one is proposed on another thread from every result
// before the current batch, then prepared (compiled while the current one is
// validated and timed), and beside it the configs the strategy expects to
// propose after that, as guesses. The strategy observes the current batch's
// results once its proposal is done, so what it proposes does not depend on
// how long the proposal took. Configs the evaluator defers are evaluated
// while the search waits for a compile with nothing else ready, and after
// the strategy has run out, while the stop conditions allow. Returns
// why it stopped, or "" when the strategy ran out of configs and every
// deferred config was evaluated.
// `lookahead`: how many likely configs to prepare ahead per batch.
std::string run_search(SearchLoop& loop, BatchEvaluator& evaluator,
                       const std::function<std::chrono::steady_clock::time_point()>& now, std::size_t lookahead);

}  // namespace vktune
