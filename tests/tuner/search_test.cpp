// The search pieces without a device: the space's indexing and neighbours,
// every registered strategy's contract, stop conditions and how a run's
// time budget is shared by its shapes, the loop, the surrogate model and the
// importance report.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "common/error.hpp"
#include "tuner/search/gaussian_process.hpp"
#include "tuner/search/importance.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/search/transfer.hpp"
#include "tuner/time_share.hpp"

namespace vktune {
namespace {

// A 3-parameter grid with holes (A*B > 32 is illegal), declared out of
// numeric order for B.
std::vector<kernels::Parameter> grid_parameters() {
  return {{"A", {1, 2, 4, 8}, ""}, {"B", {16, 4, 8}, ""}, {"C", {0, 1}, ""}};
}
SearchSpace grid_space() {
  std::vector<kernels::Config> legal;
  for (int a : {1, 2, 4, 8})
    for (int b : {16, 4, 8})
      for (int c : {0, 1})
        if (a * b <= 32) legal.push_back({{"A", a}, {"B", b}, {"C", c}});
  return SearchSpace(grid_parameters(), legal);
}

// A smooth cost with one optimum, for strategies to find.
double cost(const kernels::Config& c) {
  return 100 + 10 * std::pow(std::log2(c.at("A")) - 2, 2) + 3 * std::pow(std::log2(c.at("B")) - 3, 2) + c.at("C");
}

TEST(SearchSpace, IndexesEveryConfigAndKeepsDeclaredValueOrder) {
  const auto space = grid_space();
  ASSERT_EQ(space.size(), 18u);  // (A,B) pairs with A*B <= 32: 3 + 3 + 2 + 1, times two values of C
  for (std::size_t i = 0; i < space.size(); ++i) EXPECT_EQ(space.index_of(space.config(i)), i);
  EXPECT_FALSE(space.index_of({{"A", 8}, {"B", 16}, {"C", 0}}));
  ASSERT_EQ(space.parameter_names(), (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(space.values(1), (std::vector<int>{16, 4, 8}));
  for (std::size_t i = 0; i < space.size(); ++i)
    for (std::size_t p = 0; p < 3; ++p) {
      EXPECT_GE(space.feature(i, p), 0.0);
      EXPECT_LE(space.feature(i, p), 1.0);
    }
  EXPECT_THROW(SearchSpace({{{"A", 1}}, {{"A", 1}}}), Error);
}

// The index keeps no second copy of the configs (it hashes their value
// positions); on a random subset of a 6-parameter product it finds every
// config, and nothing that differs in a name, a fixed value, a value the
// space lacks, or an extra parameter.
TEST(SearchSpace, TheIndexFindsEveryConfigAndOnlyThose) {
  const auto seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<kernels::Config> legal;
  std::vector<kernels::Config> left_out;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 6; ++b)
      for (int c = 0; c < 5; ++c)
        for (int d = 0; d < 4; ++d)
          for (int e = 0; e < 3; ++e) {
            kernels::Config config{{"A", a}, {"B", 1 << b}, {"C", c * 3}, {"D", d}, {"E", e}, {"FIXED", 7}};
            (rng() % 3 ? legal : left_out).push_back(config);
          }
  const SearchSpace space(legal);
  ASSERT_EQ(space.size(), legal.size());
  for (std::size_t i = 0; i < space.size(); ++i) ASSERT_EQ(space.index_of(space.config(i)), i);
  std::size_t absent_found = 0;
  for (const auto& config : left_out) absent_found += space.index_of(config).has_value();
  EXPECT_EQ(absent_found, 0u);
  auto other_fixed = legal.front();
  other_fixed["FIXED"] = 8;
  EXPECT_FALSE(space.index_of(other_fixed));
  auto extra = legal.front();
  extra["G"] = 1;
  EXPECT_FALSE(space.index_of(extra));
  auto renamed = legal.front();
  renamed.erase("E");
  renamed["E2"] = legal.front().at("E");
  EXPECT_FALSE(space.index_of(renamed));
  auto unknown_value = legal.front();
  unknown_value["C"] = 1000;
  EXPECT_FALSE(space.index_of(unknown_value));
  auto twice = legal;
  twice.push_back(legal.at(legal.size() / 2));
  EXPECT_THROW(SearchSpace{twice}, Error);
}

TEST(SearchSpace, NeighboursStepOneParameterToTheNearestLegalValue) {
  const auto space = grid_space();
  const auto at = *space.index_of({{"A", 4}, {"B", 8}, {"C", 0}});
  std::set<kernels::Config> got;
  for (auto n : space.neighbours(at)) got.insert(space.config(n));
  // A: 2 below, 8 above is illegal with B=8 (64 > 32); B: 4 below (order 16,4,8), none above; C: 1.
  const std::set<kernels::Config> want{{{"A", 2}, {"B", 8}, {"C", 0}},
                                       {{"A", 4}, {"B", 4}, {"C", 0}},
                                       {{"A", 4}, {"B", 8}, {"C", 1}}};
  EXPECT_EQ(got, want);
  // Over a hole: (1,16) steps up along A past nothing illegal to (2,16).
  const auto corner = *space.index_of({{"A", 1}, {"B", 16}, {"C", 1}});
  std::set<kernels::Config> around;
  for (auto n : space.neighbours(corner)) around.insert(space.config(n));
  EXPECT_TRUE(around.count({{"A", 2}, {"B", 16}, {"C", 1}}));
}

TEST(Strategies, AreRegisteredAndUnknownNamesListThem) {
  const auto names = strategy_names();
  for (const char* name : {"anneal", "exhaustive", "model", "random"})
    EXPECT_NE(names.find(name), std::string::npos) << name;
  try {
    find_strategy("genetic");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("genetic"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos);
  }
}

// Every registered strategy: only legal, never repeated, never an observed
// seed; reproducible from its seed; and, run to the end, it visits what it
// can without repeating.
TEST(Strategies, ProposeOnlyFreshLegalIndicesReproducibly) {
  const auto rng_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(rng_seed));
  std::mt19937_64 rng(rng_seed);
  std::vector<kernels::Config> legal;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 7; ++b)
      if ((a + b) % 5 != 0) legal.push_back({{"A", a * 3}, {"B", 1 << b}});
  const SearchSpace space(legal);
  for (const auto* info : registered_strategies()) {
    for (int bounded = 0; bounded < 2; ++bounded) {
      const std::uint64_t seed = rng();
      auto trace = [&](std::uint64_t s) {
        auto strategy = info->make({space, s, bounded == 1});
        std::vector<std::size_t> order;
        std::set<std::size_t> seen;
        // Two results from outside (a baseline, a transfer seed) come first.
        for (std::size_t seeded : {std::size_t{5}, std::size_t{17}}) {
          strategy->observe({{seeded, cost({{"A", 4}, {"B", space.config(seeded).at("B")}, {"C", 0}})}});
          seen.insert(seeded);
        }
        for (int round = 0; round < 200; ++round) {
          const auto batch = strategy->propose(1 + round % 5);
          if (batch.empty()) break;
          for (auto index : batch) {
            EXPECT_LT(index, space.size()) << info->name;
            EXPECT_TRUE(seen.insert(index).second) << info->name << " proposed " << index << " twice";
            order.push_back(index);
          }
          for (auto index : strategy->upcoming(3)) EXPECT_FALSE(seen.count(index)) << info->name;
          std::vector<Observation> results;
          for (auto index : batch) {
            const auto& c = space.config(index);
            results.push_back({index, (c.at("A") + c.at("B")) % 7 == 0
                                          ? std::nullopt
                                          : std::optional<double>(100 + std::abs(c.at("A") - 12) + c.at("B"))});
          }
          strategy->observe(results);
        }
        EXPECT_EQ(seen.size(), space.size()) << info->name << " stopped before the space was spent";
        return order;
      };
      EXPECT_EQ(trace(seed), trace(seed)) << info->name << " is not reproducible from its seed";
    }
  }
}

TEST(Strategies, ExhaustiveKeepsEnumerationOrderUnlessBounded) {
  const auto space = grid_space();
  auto plain = make_strategy("exhaustive", {space, 3, false});
  auto got = plain->propose(space.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i);
  auto cut = make_strategy("exhaustive", {space, 3, true});
  auto shuffled = cut->propose(space.size());
  EXPECT_NE(shuffled, got);
  std::sort(shuffled.begin(), shuffled.end());
  EXPECT_EQ(shuffled, got);
}

// Every config of A in 1..32, B in 1..64 and C in {0, 1}: 84, no holes.
SearchSpace full_grid_space() {
  std::vector<kernels::Config> legal;
  for (int a : {1, 2, 4, 8, 16, 32})
    for (int b : {1, 2, 4, 8, 16, 32, 64})
      for (int c : {0, 1}) legal.push_back({{"A", a}, {"B", b}, {"C", c}});
  return SearchSpace(legal);
}

TEST(Strategies, ModelFindsTheOptimumOfASmoothCostSoonerThanItsWholeSpace) {
  const auto space = full_grid_space();
  std::size_t worst = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto strategy = make_strategy("model", {space, seed, true});
    std::size_t evaluated = 0;
    bool found = false;
    while (!found) {
      const auto batch = strategy->propose(4);
      ASSERT_FALSE(batch.empty());
      std::vector<Observation> results;
      for (auto index : batch) {
        ++evaluated;
        const auto& c = space.config(index);
        found = found || (c.at("A") == 4 && c.at("B") == 8 && c.at("C") == 0);
        results.push_back({index, cost(c)});
      }
      strategy->observe(results);
    }
    worst = std::max(worst, evaluated);
  }
  // 84 configs; random search needs 42 on average for the one optimum.
  EXPECT_LE(worst, 32u);
}

// The exploiting half of a surrogate batch (its first picks) takes the
// neighbours of the best that the model predicts fastest, but none
// predicted to cost many times what a typical config costs (spilling code
// takes 20 times as long to build): expected improvement per second weighs
// those. Here configs with C=1 are 2% faster, so the best config's
// neighbour with C=1 is its neighbour predicted fastest, and configs with
// C=1 and A >= 4 (a quarter) took 20 s to evaluate, the others 1 s.
TEST(Strategies, ModelLeavesCostlyNeighboursOfTheBestToExpectedImprovementPerSecond) {
  const auto space = full_grid_space();
  const auto best = *space.index_of({{"A", 4}, {"B", 8}, {"C", 0}});
  const auto costly = *space.index_of({{"A", 4}, {"B", 8}, {"C", 1}});
  const auto near = space.neighbours(best);
  ASSERT_NE(std::find(near.begin(), near.end(), costly), near.end());
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto strategy = make_strategy("model", {space, seed, true});
    // Two configs in three away from the best, and the best.
    std::vector<Observation> seen;
    for (std::size_t i = 0; i < space.size(); ++i) {
      if (i != best && (i % 3 == 1 || std::find(near.begin(), near.end(), i) != near.end())) continue;
      const auto& c = space.config(i);
      seen.push_back({i, cost(c) - 3 * c.at("C"), results::Status::ok, c.at("C") == 1 && c.at("A") >= 4 ? 20.0 : 1.0});
    }
    strategy->observe(seen);
    const auto batch = strategy->propose(4);
    ASSERT_EQ(batch.size(), 4u);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_NE(std::find(near.begin(), near.end(), batch[k]), near.end()) << "seed " << seed << " pick " << k;
      EXPECT_NE(batch[k], costly) << "seed " << seed << " pick " << k;
    }
  }
}

TEST(StopConditions, EachSaysWhyAndAnyCombinesThem) {
  const auto now = std::chrono::steady_clock::now();
  SearchProgress p;
  p.now = now;
  p.evaluated = 9;
  p.best_ns = 1030;
  p.since_improvement = 4;
  EXPECT_FALSE(stop_after_variants(10)->reason(p));
  EXPECT_TRUE(stop_after_variants(9)->reason(p));
  EXPECT_FALSE(stop_at(now + std::chrono::seconds(1))->reason(p));
  EXPECT_TRUE(stop_at(now)->reason(p));
  EXPECT_FALSE(stop_at_target(1000, 0.02)->reason(p));
  EXPECT_TRUE(stop_at_target(1000, 0.03)->reason(p));
  EXPECT_FALSE(stop_on_convergence(5)->reason(p));
  EXPECT_TRUE(stop_on_convergence(4)->reason(p));
  AnyStopCondition any;
  EXPECT_FALSE(any.reason(p));
  any.add(stop_on_convergence(5));
  EXPECT_FALSE(any.reason(p));
  any.add(stop_after_variants(9));
  EXPECT_NE(any.reason(p)->find("budget"), std::string::npos);
}

class CostEvaluator final : public BatchEvaluator {
 public:
  explicit CostEvaluator(const SearchSpace& space) : space_(space) {}
  void prepare(const std::vector<std::size_t>& batch) override { prepared.insert(batch.begin(), batch.end()); }
  Observation evaluate(std::size_t index) override {
    EXPECT_TRUE(prepared.count(index)) << "evaluated before it was prepared";
    evaluated.push_back(index);
    return {index, cost(space_.config(index))};
  }
  std::set<std::size_t> prepared;
  std::vector<std::size_t> evaluated;

 private:
  const SearchSpace& space_;
};

TEST(SearchDeadline, EqualSharesOfWhatIsLeftAndTheLastShapeTakesTheRest) {
  const auto random_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(random_seed));
  std::mt19937 random(random_seed);
  const auto start = std::chrono::steady_clock::now();
  const std::chrono::milliseconds budget{std::uniform_int_distribution<int>(10'000, 600'000)(random)};
  const std::size_t shapes = std::uniform_int_distribution<std::size_t>(2, 12)(random);
  const auto run_deadline = start + budget;
  // Every shape uses its whole share: the shares are equal and end at the run's deadline.
  auto now = start;
  for (std::size_t left = shapes; left >= 1; --left) {
    const auto d = search_deadline(now, run_deadline, left);
    const auto share = std::chrono::duration_cast<std::chrono::milliseconds>(d - now);
    EXPECT_NEAR(static_cast<double>(share.count()), static_cast<double>(budget.count()) / static_cast<double>(shapes),
                1.0)
        << left << " of " << shapes << " shapes left";
    now = d;
  }
  EXPECT_EQ(now, run_deadline);
}

TEST(SearchDeadline, TimeAShapeLeavesGoesToTheLaterOnes) {
  const auto start = std::chrono::steady_clock::now();
  const auto run_deadline = start + std::chrono::milliseconds(90'000);
  // Three shapes: the first stops after 5 s of its 30; the other two share the remaining 85 s.
  const auto second_start = start + std::chrono::milliseconds(5'000);
  EXPECT_EQ(search_deadline(second_start, run_deadline, 2), second_start + std::chrono::milliseconds(42'500));
  EXPECT_EQ(search_deadline(second_start, run_deadline, 1), run_deadline);
  // Past the run's deadline a shape gets none; overheads past the time left leave the search none.
  EXPECT_EQ(search_deadline(run_deadline + std::chrono::milliseconds(1), run_deadline, 3), run_deadline);
  EXPECT_EQ(search_deadline(start, run_deadline, 2, std::chrono::milliseconds(100'000)), start);
}

// Shapes that take a while to set up (inputs, the CPU reference) and run a
// tail past their searches (re-timing the finalists, the final check on full
// references): through BudgetShares, once the first shape has shown them,
// every later search gets the same share and the run ends at its deadline.
// The old rule (equal shares of what is left as each shape starts) gave each
// shape what the tails before it left and ran a tail past the deadline.
TEST(BudgetShares, SetupsAndTailsStillToComeAreKeptOutOfTheShares) {
  const auto random_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(random_seed));
  std::mt19937 random(random_seed);
  using ms = std::chrono::milliseconds;
  const auto as_ms = [](std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto start = std::chrono::steady_clock::now();
  const std::size_t shapes = std::uniform_int_distribution<std::size_t>(3, 8)(random);
  const ms setup{std::uniform_int_distribution<int>(200, 3'000)(random)};
  const ms tail{std::uniform_int_distribution<int>(2'000, 10'000)(random)};
  const ms budget{20'000 * static_cast<int>(shapes)};
  const auto run_deadline = start + budget;
  BudgetShares shares(run_deadline, shapes);
  auto now = start;
  std::vector<double> searched;
  for (std::size_t i = 0; i < shapes; ++i) {
    shares.shape_started(now);
    now += setup;
    const auto search_start = now;
    const auto d = shares.search_deadline_at(search_start);
    ASSERT_GE(d, search_start);
    searched.push_back(as_ms(d - search_start));
    now = d + tail;
    shares.shape_ended(now, as_ms(d - search_start) / 1e3);
  }
  // The first shape's tail was not foreseen: it took its share of the others'.
  const double later = (static_cast<double>(budget.count()) - searched[0] -
                        static_cast<double>(shapes) * static_cast<double>((setup + tail).count())) /
                       static_cast<double>(shapes - 1);
  EXPECT_NEAR(searched[0], static_cast<double>(budget.count() - shapes * setup.count()) / static_cast<double>(shapes),
              1.0);
  for (std::size_t i = 1; i < shapes; ++i) EXPECT_NEAR(searched[i], later, 1.0) << "shape " << i + 1 << " of " << shapes;
  EXPECT_NEAR(as_ms(now - run_deadline), 0.0, 1.0);
  // The old rule, for contrast: the last shape's tail runs past the deadline.
  now = start;
  for (std::size_t i = 0; i < shapes; ++i) now = std::max(search_deadline(now, run_deadline, shapes - i), now + setup) + tail;
  EXPECT_GE(as_ms(now - run_deadline), static_cast<double>(tail.count()) - 1.0);
  // A shape that never searched (interrupted) adds no estimate.
  BudgetShares interrupted(run_deadline, 2);
  interrupted.shape_started(start);
  interrupted.shape_ended(start + ms(5'000), 0);
  interrupted.shape_started(start + ms(5'000));
  EXPECT_EQ(interrupted.search_deadline_at(start + ms(5'000)), run_deadline);
}

TEST(SearchLoop, SeedsComeFirstTheBudgetHoldsAndNothingRepeats) {
  const auto space = grid_space();
  auto strategy = make_strategy("random", {space, 11, true});
  AnyStopCondition stop;
  stop.add(stop_after_variants(9));
  SearchLoop loop(space, *strategy, stop, 4, 9);
  loop.observe_outside({3, 120.0});  // the baseline
  loop.add_seeds({7, 7, 3, 12});     // a repeat and the baseline are dropped
  CostEvaluator evaluator(space);
  const auto why = run_search(loop, evaluator, [] { return std::chrono::steady_clock::now(); }, 4);
  EXPECT_NE(why.find("budget"), std::string::npos);
  ASSERT_EQ(evaluator.evaluated.size(), 9u);
  EXPECT_EQ(evaluator.evaluated[0], 7u);
  EXPECT_EQ(evaluator.evaluated[1], 12u);
  std::set<std::size_t> unique(evaluator.evaluated.begin(), evaluator.evaluated.end());
  EXPECT_EQ(unique.size(), 9u);
  EXPECT_FALSE(unique.count(3));
  EXPECT_LE(loop.handed_out(), 9u);  // nothing compiled past the budget
}

// Convergence counts the evaluations since the best last improved by over
// 1%: gains within the timing noise do not restart it.
TEST(SearchLoop, ConvergenceIgnoresGainsWithinOnePercent) {
  const auto space = grid_space();
  auto strategy = make_strategy("exhaustive", {space, 1, false});
  AnyStopCondition never;
  SearchLoop loop(space, *strategy, never, 3);
  loop.record({0, 1000.0});
  EXPECT_EQ(loop.progress().since_improvement, 0u);
  loop.record({1, 995.0});  // 0.5% faster: the best moves, the count goes on
  EXPECT_EQ(*loop.progress().best_ns, 995.0);
  EXPECT_EQ(loop.progress().since_improvement, 1u);
  loop.record({2, std::nullopt});  // a failure
  loop.record({3, 991.0});         // 0.9% under the last gain's 1000: still noise
  EXPECT_EQ(loop.progress().since_improvement, 3u);
  loop.record({4, 985.0});  // 1.5% under 1000: a gain
  EXPECT_EQ(loop.progress().since_improvement, 0u);
  loop.record({5, 980.0});  // 0.5% under 985
  EXPECT_EQ(loop.progress().since_improvement, 1u);
  EXPECT_EQ(*loop.progress().best_ns, 980.0);
}

TEST(SearchLoop, EndsWhenTheSpaceIsSpent) {
  const auto space = grid_space();
  auto strategy = make_strategy("exhaustive", {space, 1, false});
  AnyStopCondition never;
  SearchLoop loop(space, *strategy, never, 3);
  CostEvaluator evaluator(space);
  EXPECT_EQ(run_search(loop, evaluator, [] { return std::chrono::steady_clock::now(); }, 4), "");
  EXPECT_EQ(evaluator.evaluated.size(), space.size());
}

TEST(GaussianProcess, InterpolatesASmoothFunctionAndIsSureOnlyNearData) {
  const auto rng_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(rng_seed));
  std::mt19937_64 rng(rng_seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int n = 40;
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  auto f = [](double a, double b) { return std::sin(3 * a) + 0.5 * b; };
  for (int i = 0; i < n; ++i) {
    x(i, 0) = u(rng);
    x(i, 1) = u(rng);
    y(i) = f(x(i, 0), x(i, 1));
  }
  GaussianProcess gp;
  gp.fit(x, y);
  Eigen::MatrixXd probe(2, 2);
  probe << 0.5, 0.5, x(0, 0), x(0, 1);
  const auto post = gp.posterior(probe);
  const double scale = gp.standardise(1) - gp.standardise(0);
  EXPECT_NEAR(post.mean(0) / scale, gp.standardise(f(0.5, 0.5)) / scale, 0.1 / scale + 0.1);
  EXPECT_NEAR(post.mean(1), gp.standardise(y(0)), 0.1);
  const double variance_at_data = 1 - post.v.col(1).squaredNorm();
  EXPECT_LT(variance_at_data, 0.1);
}

TEST(Importance, NamesTheParameterThatExplainsTheTimes) {
  std::vector<std::pair<kernels::Config, double>> timed;
  const auto rng_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(rng_seed));
  std::mt19937_64 rng(rng_seed);
  for (int a : {1, 2, 4})
    for (int b : {0, 1})
      for (int noise = 0; noise < 3; ++noise)
        timed.push_back({{{"A", a}, {"B", b}, {"FIXED", 7}},
                         1000.0 * a * (1 + 0.01 * b) * (1 + 0.001 * static_cast<double>(rng() % 10))});
  const auto importance = parameter_importance(timed);
  ASSERT_EQ(importance.size(), 2u);  // FIXED takes one value
  EXPECT_EQ(importance[0].name, "A");
  EXPECT_GT(importance[0].share, 0.95);
  EXPECT_LT(importance[1].share, 0.05);
  EXPECT_EQ(importance[0].best_value, 1);
  EXPECT_EQ(importance[1].best_value, 0);
}

TEST(Transfer, NearestShapesShareTheSpaceAndComeNearestFirst) {
  struct TwoRegimes : kernels::Kernel {
    std::string name() const override { return "t"; }
    std::string description() const override { return ""; }
    std::vector<std::string> shape_dims() const override { return {"M", "N"}; }
    void validate_shape(const kernels::Shape&) const override {}
    std::vector<kernels::Shape> default_shapes() const override { return {}; }
    std::vector<kernels::Shape> check_shapes() const override { return {}; }
    std::vector<kernels::Space> build_spaces() const override {
      kernels::Space decode{"decode", "", {}}, prefill{"prefill", "", {}};
      decode.shape_class = {{0, 1, 8}};
      return {decode, prefill};
    }
    kernels::Config baseline(const kernels::Shape&) const override { return {}; }
    Violation constraint_violation(const kernels::Config&, const kernels::Shape&,
                                   const vk::DeviceInfo&) const override {
      return {};
    }
    kernels::ShaderPlan plan(const kernels::Config&, const kernels::Shape&) const override { return {}; }
    kernels::Problem make_problem(const kernels::Shape&, const kernels::Inputs&) const override { return {}; }
    kernels::Tolerance tolerance(const kernels::Shape&) const override { return {}; }
    kernels::Metrics metrics(const kernels::Shape&) const override { return {}; }
    std::uint64_t device_bytes(const kernels::Shape&) const override { return 0; }
  } kernel;
  const std::vector<kernels::Shape> tuned{{1, 4096}, {512, 4096}, {2, 1024}, {1, 14336}, {4, 4096}};
  const auto near = nearest_shapes(kernel, {1, 4096}, tuned, 2);
  EXPECT_EQ(near, (std::vector<kernels::Shape>{{1, 14336}, {4, 4096}}));  // log2 3.5 < 2
}

}  // namespace
}  // namespace vktune
