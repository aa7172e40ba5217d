#include "tuner/search/search_loop.hpp"

#include <algorithm>
#include <chrono>
#include <future>

#include "common/error.hpp"

namespace vktune {

SearchLoop::SearchLoop(const SearchSpace& space, Strategy& strategy, const StopCondition& stop,
                       std::size_t batch_size, std::optional<std::size_t> max_variants)
    : space_(space),
      strategy_(strategy),
      stop_(stop),
      batch_size_(std::max<std::size_t>(1, batch_size)),
      max_variants_(max_variants),
      handed_out_(space.size(), false) {}

void SearchLoop::add_seeds(const std::vector<std::size_t>& seeds) {
  for (auto s : seeds)
    if (s < space_.size() && std::find(seeds_.begin(), seeds_.end(), s) == seeds_.end()) seeds_.push_back(s);
}

void SearchLoop::observe_outside(const Observation& result) {
  if (result.index >= space_.size()) return;
  if (!handed_out_[result.index]) {
    handed_out_[result.index] = true;  // not counted: it is no evaluation of the search
    seeds_.erase(std::remove(seeds_.begin(), seeds_.end(), result.index), seeds_.end());
  }
  strategy_.observe({result});
}

bool SearchLoop::hand_out(std::size_t index) {
  if (index >= space_.size()) throw Error(ErrorKind::internal, "a strategy proposed an index outside the space");
  if (handed_out_[index]) return false;
  handed_out_[index] = true;
  ++handed_out_count_;
  return true;
}

std::vector<std::size_t> SearchLoop::next_batch() {
  std::vector<std::size_t> batch;
  auto room = [&] {
    const std::size_t cap = max_variants_ ? *max_variants_ : space_.size();
    return handed_out_count_ < cap ? std::min(batch_size_ - batch.size(), cap - handed_out_count_) : 0;
  };
  // Seeds go out in batches of their own, so that the strategy's first
  // proposals come after them.
  while (seeds_given_ < seeds_.size() && room() > 0) {
    if (hand_out(seeds_[seeds_given_])) batch.push_back(seeds_[seeds_given_]);
    ++seeds_given_;
  }
  last_was_seeds_ = !batch.empty();
  if (!batch.empty() || strategy_done_) return batch;
  // A proposal may name a config handed out but not yet observed (a seed in
  // flight): it is dropped and the strategy asked again.
  for (int attempt = 0; attempt < 4 && room() > 0; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    const auto proposed = strategy_.propose(room());
    proposal_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (proposed.empty()) {
      strategy_done_ = batch.empty();
      break;
    }
    for (auto index : proposed)
      if (hand_out(index)) batch.push_back(index);
    if (!batch.empty()) break;
  }
  return batch;
}

std::vector<std::size_t> SearchLoop::upcoming(std::size_t count) const {
  std::vector<std::size_t> out(seeds_.begin() + static_cast<long>(seeds_given_), seeds_.end());
  for (auto index : strategy_.upcoming(count))
    if (index < space_.size() && !handed_out_[index]) out.push_back(index);
  if (out.size() > count) out.resize(count);
  return out;
}

std::optional<std::string> SearchLoop::stop_reason(std::chrono::steady_clock::time_point now) const {
  auto p = progress_;
  p.now = now;
  return stop_.reason(p);
}

void SearchLoop::record(const Observation& result) {
  count(result);
  observe(result);
}

void SearchLoop::count(const Observation& result) {
  ++progress_.evaluated;
  if (result.time_ns && (!progress_.best_ns || *result.time_ns < *progress_.best_ns)) {
    progress_.best_ns = result.time_ns;
  }
  // Only a gain of more than kConvergenceGain over the best at the last such
  // gain restarts the count: timing noise would restart it forever.
  if (result.time_ns && (!gain_reference_ns_ || *result.time_ns < *gain_reference_ns_ * (1 - kConvergenceGain))) {
    gain_reference_ns_ = result.time_ns;
    progress_.since_improvement = 0;
  } else {
    ++progress_.since_improvement;
  }
}

std::optional<std::size_t> SearchLoop::take_deferred() {
  if (deferred_.empty()) return std::nullopt;
  const auto index = deferred_.front();
  deferred_.erase(deferred_.begin());
  return index;
}

std::string run_search(SearchLoop& loop, BatchEvaluator& evaluator,
                       const std::function<std::chrono::steady_clock::time_point()>& now, std::size_t lookahead) {
  auto current = loop.next_batch();
  evaluator.prepare(current);
  while (!current.empty()) {
    // Proposed one batch early and on another thread, the next batch is
    // chosen and compiled while this one is on the device; proposed after
    // it, the device idled while the strategy fitted its models and the
    // workers compiled (attention_decode, --space full, on an H200: 1.6
    // variants/s, 3.1 two batches deep: measurements/nvidia-h200/session28/
    // pipelined). The strategy's model is then one batch behind; it never
    // proposes a config in flight (spent when proposed). Transfer seeds are
    // the exception: what the strategy proposes first should know how they
    // did.
    std::future<std::vector<std::size_t>> proposing;
    if (!loop.last_batch_was_seeds()) proposing = std::async(std::launch::async, [&loop] { return loop.next_batch(); });
    std::optional<std::vector<std::size_t>> next;
    std::vector<Observation> held;  // this batch's results, while the proposal runs
    const auto proposal_done = [&] {
      return !proposing.valid() || proposing.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    const auto take_next = [&] {
      if (!proposal_done()) evaluator.before_proposal();
      next = proposing.valid() ? proposing.get() : loop.next_batch();
      evaluator.prepare(*next);
      evaluator.speculate(loop.upcoming(lookahead));
      for (const auto& o : held) loop.observe(o);
      held.clear();
    };
    const auto measure = [&](std::size_t index) {
      const auto result = evaluator.evaluate(index);
      loop.count(result);
      if (next || !proposing.valid()) {
        loop.observe(result);
      } else {
        held.push_back(result);
        if (proposal_done()) take_next();
      }
    };
    // Ready configs first: one whose compile is long (a 10-s compile among
    // 0.1-s ones, or one that runs to its deadline) does not hold the
    // device. Once the next batch is proposed and nothing here is ready,
    // what is still compiling (up to a batch of it) moves into the next
    // batch and the search goes on. Where everything is ready at once (a
    // replay) this is the order handed out.
    while (!current.empty()) {
      if (auto why = loop.stop_reason(now())) {
        if (proposing.valid()) proposing.wait();
        for (const auto& o : held) loop.observe(o);  // every result, as in a search that goes on
        return *why;
      }
      // A ready config whose code spills waits until the GPU would otherwise
      // idle (below) or nothing else is left. The strategy hears of it at once, as a config with no time and with
      // what its compile and pipeline cost, so that its failure model weighs
      // its neighbours down and its cost model prices them (spilling code is
      // the slow code to build: matmul_q6k's spilling variants took 3.8 s to
      // compile on an H200, the others 0.18 s; measurements/nvidia-h200/
      // session29), and of its time if it is measured at the end. It counts
      // toward no stop condition.
      for (auto it = current.begin(); it != current.end();) {
        const auto deferral = evaluator.ready(*it) ? evaluator.defer(*it) : std::nullopt;
        if (deferral) {
          loop.defer(*it);
          const Observation deferred{*it, std::nullopt, results::Status::ok, *deferral};
          if (next || !proposing.valid()) {
            loop.observe(deferred);
          } else {
            held.push_back(deferred);
          }
          it = current.erase(it);
        } else {
          ++it;
        }
      }
      if (current.empty()) break;
      auto pick = std::find_if(current.begin(), current.end(), [&](std::size_t i) { return evaluator.ready(i); });
      if (pick == current.end()) {
        if (!next && proposing.valid() && proposal_done()) take_next();
        if (next && current.size() <= loop.batch_size() && !next->empty()) break;  // carried into the next batch
        // Nothing to do but wait for a compile. The device would idle: a
        // deferred config, built already, is measured meanwhile (its time
        // costs no other config's). Else a moment at a time, so that the
        // config is deferred if its code spills once it is built and the
        // stop conditions are heard while it builds.
        if (loop.deferred_left() > 0) {
          measure(*loop.take_deferred());
        } else {
          evaluator.wait_a_moment();
        }
        continue;
      }
      const auto index = *pick;
      current.erase(pick);
      measure(index);
    }
    if (!next) take_next();
    current.insert(current.end(), next->begin(), next->end());
  }
  // The strategy has run out: what was deferred, while time allows. The
  // budget counted them when they were handed out.
  while (loop.deferred_left() > 0) {
    if (auto why = loop.stop_reason(now())) return *why;
    loop.record(evaluator.evaluate(*loop.take_deferred()));
  }
  // The loop hands out nothing past a budget: say so rather than "spent".
  if (auto why = loop.stop_reason(now())) return *why;
  return "";
}

}  // namespace vktune
