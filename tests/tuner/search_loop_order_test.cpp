// How the search loop orders what is ready, without a device: a config
// still compiling waits while the others go on, and configs whose code
// spills (the driver's pipeline statistics say so) are deferred: when they
// are measured and what the strategy hears of them.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune {
namespace {

// Eighteen configs of one parameter: the exhaustive strategy hands them out
// in this order, three to a batch.
SearchSpace line_space() {
  std::vector<kernels::Config> legal;
  for (int v = 0; v < 18; ++v) legal.push_back({{"V", v}});
  return SearchSpace(legal);
}

// The exhaustive strategy in enumeration order, three configs a batch, no
// stop condition.
struct InOrder {
  explicit InOrder(const SearchSpace& space)
      : strategy(make_strategy("exhaustive", {space, 1, false})), loop(space, *strategy, never, 3) {}
  // Runs the search to its end: why it stopped, "" when the space is spent.
  std::string run(BatchEvaluator& evaluator) {
    return run_search(loop, evaluator, [] { return std::chrono::steady_clock::now(); }, 0);
  }
  std::unique_ptr<Strategy> strategy;
  AnyStopCondition never;
  SearchLoop loop;
};

// A config whose compile is slow does not hold the search: the configs
// ready beside it go first, and once the next batch is proposed it waits
// there while the search goes on. Here index 1 (of the first batch of
// three) is ready only after six other evaluations.
class SlowCompileEvaluator final : public BatchEvaluator {
 public:
  void prepare(const std::vector<std::size_t>& batch) override { prepared.insert(batch.begin(), batch.end()); }
  bool ready(std::size_t index) const override { return index != kSlow || evaluated.size() >= 6; }
  Observation evaluate(std::size_t index) override {
    EXPECT_TRUE(prepared.count(index)) << "evaluated before it was prepared";
    EXPECT_TRUE(ready(index)) << index << " was waited for while others were ready";
    evaluated.push_back(index);
    return {index, 100.0 + static_cast<double>(index)};
  }
  static constexpr std::size_t kSlow = 1;
  std::set<std::size_t> prepared;
  std::vector<std::size_t> evaluated;
};

TEST(SearchLoop, ASlowCompileWaitsInTheNextBatchWhileTheSearchGoesOn) {
  const auto space = line_space();
  InOrder search(space);
  SlowCompileEvaluator evaluator;
  EXPECT_EQ(search.run(evaluator), "");
  ASSERT_EQ(evaluator.evaluated.size(), space.size());
  EXPECT_EQ(std::set<std::size_t>(evaluator.evaluated.begin(), evaluator.evaluated.end()).size(), space.size());
  const std::vector<std::size_t> first(evaluator.evaluated.begin(), evaluator.evaluated.begin() + 8);
  EXPECT_EQ(first, (std::vector<std::size_t>{0, 2, 3, 4, 5, 6, 1, 7}));
}


// Configs whose code spills (the driver's pipeline statistics say so) wait
// until the strategy has nothing else to hand out, then go in the order
// they were deferred; a stop before then leaves them unmeasured, counted.
class SpillingEvaluator final : public BatchEvaluator {
 public:
  explicit SpillingEvaluator(std::set<std::size_t> spilling) : spilling(std::move(spilling)) {}
  void prepare(const std::vector<std::size_t>& batch) override { prepared.insert(batch.begin(), batch.end()); }
  std::optional<double> defer(std::size_t index) override {
    return spilling.count(index) ? std::optional(kPreparationSeconds) : std::nullopt;
  }
  static constexpr double kPreparationSeconds = 2.5;
  Observation evaluate(std::size_t index) override {
    EXPECT_TRUE(prepared.count(index)) << "evaluated before it was prepared";
    evaluated.push_back(index);
    return {index, 100.0 + static_cast<double>(index)};
  }
  std::set<std::size_t> spilling, prepared;
  std::vector<std::size_t> evaluated;
};

TEST(SearchLoop, ConfigsWhoseCodeSpillsAreMeasuredOnlyWhenNothingElseIsLeft) {
  const auto space = line_space();
  const auto rng_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(rng_seed));
  std::mt19937_64 rng(rng_seed);
  std::set<std::size_t> spilling;
  while (spilling.size() < 4) spilling.insert(rng() % space.size());
  {
    InOrder search(space);
    SpillingEvaluator evaluator(spilling);
    EXPECT_EQ(search.run(evaluator), "");
    ASSERT_EQ(evaluator.evaluated.size(), space.size());
    EXPECT_EQ(std::set<std::size_t>(evaluator.evaluated.begin(), evaluator.evaluated.end()).size(), space.size());
    // Every spilling config after every other one.
    const std::set<std::size_t> last(evaluator.evaluated.end() - 4, evaluator.evaluated.end());
    EXPECT_EQ(last, spilling);
    EXPECT_EQ(search.loop.deferred_count(), 4u);
    EXPECT_EQ(search.loop.deferred_left(), 0u);
  }
  {
    // The strategy hears of each deferred config at once, without a time
    // and with what preparing it cost (its cost model prices it), before
    // any evaluation of it; and of its time once it is measured.
    struct Recording final : Strategy {
      explicit Recording(std::unique_ptr<Strategy> inner) : inner(std::move(inner)) {}
      std::vector<std::size_t> propose(std::size_t count) override { return inner->propose(count); }
      void observe(const std::vector<Observation>& results) override {
        seen.insert(seen.end(), results.begin(), results.end());
        inner->observe(results);
      }
      std::unique_ptr<Strategy> inner;
      std::vector<Observation> seen;
    } strategy(make_strategy("exhaustive", {space, 1, false}));
    AnyStopCondition never;
    SearchLoop loop(space, strategy, never, 3);
    SpillingEvaluator evaluator(spilling);
    EXPECT_EQ(run_search(loop, evaluator, [] { return std::chrono::steady_clock::now(); }, 0), "");
    for (auto index : spilling) {
      std::vector<std::optional<double>> times;
      std::vector<double> seconds;
      for (const auto& o : strategy.seen) {
        if (o.index != index) continue;
        times.push_back(o.time_ns);
        seconds.push_back(o.seconds);
      }
      ASSERT_EQ(times.size(), 2u) << index;
      EXPECT_FALSE(times[0]) << index << ": first heard of without a time";
      EXPECT_EQ(seconds[0], SpillingEvaluator::kPreparationSeconds) << index << ": and with its price";
      EXPECT_TRUE(times[1]) << index << ": then with its time";
    }
  }
  {
    // A budget that ends the search before the spilling configs' turn.
    auto strategy = make_strategy("exhaustive", {space, 1, false});
    const std::size_t others = space.size() - spilling.size();
    AnyStopCondition budget;
    budget.add(stop_after_variants(others));
    SearchLoop loop(space, *strategy, budget, 3);
    SpillingEvaluator evaluator(spilling);
    EXPECT_FALSE(run_search(loop, evaluator, [] { return std::chrono::steady_clock::now(); }, 0).empty());
    ASSERT_EQ(evaluator.evaluated.size(), others);
    for (auto index : evaluator.evaluated) EXPECT_EQ(spilling.count(index), 0u) << index;
    EXPECT_EQ(loop.deferred_count(), loop.deferred_left());
    EXPECT_GT(loop.deferred_left(), 0u);
  }
}

// A config that is not ready when nothing else is left is waited for, not
// evaluated half-built: once built, the driver's statistics may say it
// spills, and then it is deferred like any other. While it builds, the
// device measures a config deferred before, if there is one. Here the
// space's last config (in the exhaustive strategy's last batch) is built
// only after a few moments of waiting.
class SlowSpillingEvaluator final : public BatchEvaluator {
 public:
  SlowSpillingEvaluator(std::size_t slow, std::set<std::size_t> spilling) : slow(slow), spilling(std::move(spilling)) {}
  void prepare(const std::vector<std::size_t>& batch) override { prepared.insert(batch.begin(), batch.end()); }
  bool ready(std::size_t index) const override { return index != slow || moments >= 3; }
  void wait_a_moment() override { ++moments; }
  std::optional<double> defer(std::size_t index) override {
    return spilling.count(index) ? std::optional(1.0) : std::nullopt;
  }
  Observation evaluate(std::size_t index) override {
    EXPECT_TRUE(ready(index)) << index << " was evaluated before it was built";
    evaluated.push_back(index);
    return {index, 100.0 + static_cast<double>(index)};
  }
  std::size_t slow;
  std::set<std::size_t> spilling;
  std::size_t moments = 0;
  std::set<std::size_t> prepared;
  std::vector<std::size_t> evaluated;
};

TEST(SearchLoop, AConfigWaitedForIsDeferredIfItsCodeSpillsOnceBuilt) {
  const auto space = line_space();
  InOrder search(space);
  SlowSpillingEvaluator evaluator(space.size() - 1, {space.size() - 1});
  EXPECT_EQ(search.run(evaluator), "");
  EXPECT_GE(evaluator.moments, 3u);
  EXPECT_EQ(search.loop.deferred_count(), 1u);
  ASSERT_EQ(evaluator.evaluated.size(), space.size());
  EXPECT_EQ(evaluator.evaluated.back(), evaluator.slow);
}

TEST(SearchLoop, WhileACompileIsWaitedForADeferredConfigIsMeasured) {
  const auto space = line_space();
  InOrder search(space);
  // The last batch holds both: the spilling config is deferred, and
  // measured while the slow one builds, not after it.
  const auto slow = space.size() - 1, spilling = space.size() - 2;
  SlowSpillingEvaluator evaluator(slow, {spilling});
  EXPECT_EQ(search.run(evaluator), "");
  EXPECT_EQ(search.loop.deferred_count(), 1u);
  EXPECT_EQ(search.loop.deferred_left(), 0u);
  ASSERT_EQ(evaluator.evaluated.size(), space.size());
  EXPECT_EQ(evaluator.evaluated.back(), slow);
  EXPECT_EQ(evaluator.evaluated.end()[-2], spilling);
}

}  // namespace
}  // namespace vktune
