// The surrogate strategy (`--strategy model` on the command line; the name
// "model" is kept for users, the code calls it the surrogate so that it is
// not confused with the LLM `vktune model` commands).
//
// Three models over the parameter encoding, refitted before every batch:
// - time: a Gaussian process (GP) of log time over the configs that were
//   timed;
// - failure: the probability that a config fails (compile error, timeout,
//   wrong result, ...), a kernel-weighted share of the failures near it
//   under the time GP's length scales, drawn toward the share seen overall;
// - cost: a second GP, of log seconds that evaluating a config took
//   (compile, pipeline, validation, warm-up, timing; failures included, a
//   timeout at what it cost), where the results carry their cost and it
//   varies.
// A config is worth its expected improvement in log time, times the chance
// that it does not fail, per second of its predicted cost: a config class
// that failed or timed out is priced, not forgotten, and one that takes
// long to build is measured when what it promises is worth the seconds.
//
// A batch is chosen one config at a time, each time as if the configs
// already chosen had been measured at the predicted mean ("kriging
// believer"): their neighbourhood's uncertainty shrinks, so one batch does
// not crowd one spot. Before the time GP has enough results the strategy
// samples the space evenly (each pick the farthest of a few random configs
// from everything spent).
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "tuner/search/gaussian_process.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune {
namespace {

// Values chosen by replaying the H200's exhaustive attention_decode
// measurements (measurements/nvidia-h200/measurements_session5.csv) with batches of 4.
constexpr std::size_t kInitialResults = 4;  // timed results before the GP is trusted
constexpr std::size_t kMaxTraining = 500;    // fits are cubic in this
constexpr std::size_t kMaxCandidates = 3000; // predictions are linear in this
constexpr double kExploration = 0.01;         // EI's margin, in standardised log time
// Past this many results the length scales and noise are searched again
// only every kRefitEvery batches (kept in between): the search costs dozens
// of cubic factorisations, which at a few hundred results took longer than
// timing the batch.
constexpr std::size_t kSearchAlwaysUpTo = 100;
constexpr std::size_t kRefitEvery = 4;
// The cost model: results with a known cost before it is fitted, and the
// spread of log seconds below which every config is taken to cost the same.
constexpr std::size_t kMinCostResults = 4;
constexpr double kMinCostSpread = 0.05;
// The failure model's pull toward the share of failures seen overall, in
// units of one result at distance zero.
constexpr double kFailurePrior = 1.0;
// The exploiting half of a batch takes no neighbour of the best predicted
// to cost more than this many typical configs: expected improvement per
// second weighs such a config's promise against its price instead. (The
// best matmul_q6k configs on an H200 neighbour configs whose code spills
// and takes 20 times as long to build; with this limit and deferred configs
// measured while compiles run, its --space full tune measured 4.35 variants
// a second, against 1.08 without either: measurements/nvidia-h200/session30.)
constexpr double kLocalCostLimit = 4.0;

class SurrogateStrategy final : public TrackingStrategy {
 public:
  explicit SurrogateStrategy(const StrategyContext& context) : TrackingStrategy(context), rng_(context.seed) {}

  std::vector<std::size_t> propose(std::size_t count) override {
    std::size_t timed = 0;
    for (const auto& r : results_) timed += r.time_ns.has_value();
    std::vector<std::size_t> out;
    upcoming_.clear();
    if (timed >= kInitialResults && space_.feature_count() > 0) out = by_surrogate(count);
    while (out.size() < count && spent_count() < space_.size()) {
      const auto index = spread_pick();
      spend(index);
      out.push_back(index);
    }
    return out;
  }

 private:
  Eigen::VectorXd features(std::size_t index) const {
    Eigen::VectorXd f(static_cast<Eigen::Index>(space_.feature_count()));
    for (std::size_t p = 0; p < space_.feature_count(); ++p) f(static_cast<Eigen::Index>(p)) = space_.feature(index, p);
    return f;
  }

  double distance_to_spent(std::size_t index) const {
    double nearest = 1e9;
    const auto f = features(index);
    for (std::size_t j = 0; j < space_.size(); ++j)
      if (spent(j)) nearest = std::min(nearest, (features(j) - f).squaredNorm());
    return nearest;
  }

  std::size_t spread_pick() {
    std::size_t best = space_.size();
    double farthest = -1;
    for (int tries = 0; tries < 32; ++tries) {
      const auto index = space_.random_index(rng_);
      if (spent(index)) continue;
      const double d = distance_to_spent(index);
      if (d > farthest) {
        farthest = d;
        best = index;
      }
    }
    if (best == space_.size()) {  // nearly everything spent: take the first unspent
      for (std::size_t j = 0; j < space_.size(); ++j)
        if (!spent(j)) return j;
    }
    return best;
  }

  // Rows of features and a target, for a GP fit.
  struct Training {
    std::vector<std::size_t> index;
    Eigen::MatrixXd x;
    Eigen::VectorXd y;
  };
  Training training(std::vector<std::pair<std::size_t, double>> points) const {
    // Over the cap, the best half (lowest target) and the most recent half.
    if (points.size() > kMaxTraining) {
      std::vector<std::pair<std::size_t, double>> kept(points.end() - kMaxTraining / 2, points.end());
      points.resize(points.size() - kMaxTraining / 2);
      std::partial_sort(points.begin(), points.begin() + kMaxTraining / 2, points.end(),
                        [](const auto& a, const auto& b) { return a.second < b.second; });
      kept.insert(kept.end(), points.begin(), points.begin() + kMaxTraining / 2);
      points = std::move(kept);
    }
    Training t;
    const auto d = static_cast<Eigen::Index>(space_.feature_count());
    t.x.resize(static_cast<Eigen::Index>(points.size()), d);
    t.y.resize(static_cast<Eigen::Index>(points.size()));
    for (std::size_t i = 0; i < points.size(); ++i) {
      t.index.push_back(points[i].first);
      t.x.row(static_cast<Eigen::Index>(i)) = features(points[i].first);
      t.y(static_cast<Eigen::Index>(i)) = points[i].second;
    }
    return t;
  }

  // Per candidate row of `c`, the chance that it fails: failures near it
  // (under the time GP's kernel) over all results near it, drawn toward the
  // share of failures seen overall. Zero everywhere when nothing failed.
  Eigen::VectorXd failure_chance(const GaussianProcess& gp, const Eigen::MatrixXd& c) const {
    std::size_t failed = 0;
    for (const auto& r : results_) failed += !r.time_ns.has_value();
    Eigen::VectorXd p = Eigen::VectorXd::Zero(c.rows());
    if (failed == 0) return p;
    const double overall = (static_cast<double>(failed) + 1) / (static_cast<double>(results_.size()) + 2);
    std::vector<Eigen::VectorXd> seen;
    std::vector<double> fails;
    for (const auto& r : results_) {
      seen.push_back(features(r.index));
      fails.push_back(r.time_ns ? 0.0 : 1.0);
    }
    for (Eigen::Index j = 0; j < c.rows(); ++j) {
      double weight = kFailurePrior, sum = kFailurePrior * overall;
      const Eigen::VectorXd here = c.row(j).transpose();
      for (std::size_t i = 0; i < seen.size(); ++i) {
        const double k = gp.kernel(here, seen[i]);
        weight += k;
        sum += k * fails[i];
      }
      p(j) = sum / weight;
    }
    return p;
  }

  // Per candidate row of `c`, its predicted cost relative to the median
  // cost seen; all ones where costs are unknown or all alike.
  Eigen::VectorXd relative_cost(const Eigen::MatrixXd& c) {
    Eigen::VectorXd cost = Eigen::VectorXd::Ones(c.rows());
    std::vector<std::pair<std::size_t, double>> points;
    for (const auto& r : results_)
      if (r.seconds > 0) points.emplace_back(r.index, std::log(r.seconds));
    if (points.size() < kMinCostResults) return cost;
    std::vector<double> logs;
    for (const auto& [i, l] : points) logs.push_back(l);
    double mean = 0;
    for (double l : logs) mean += l / static_cast<double>(logs.size());
    double spread = 0;
    for (double l : logs) spread += (l - mean) * (l - mean) / static_cast<double>(logs.size());
    if (std::sqrt(spread) < kMinCostSpread) return cost;
    std::nth_element(logs.begin(), logs.begin() + static_cast<long>(logs.size() / 2), logs.end());
    const double typical = logs[logs.size() / 2];
    const auto t = training(std::move(points));
    GaussianProcess gp;
    gp.fit(t.x, t.y, cost_previous_ ? &*cost_previous_ : nullptr);
    cost_previous_ = gp;
    const auto post = gp.posterior(c);
    for (Eigen::Index j = 0; j < c.rows(); ++j) cost(j) = std::exp(gp.unstandardise(post.mean(j)) - typical);
    return cost;
  }

  std::vector<std::size_t> by_surrogate(std::size_t count) {
    // The time model learns from timed results only: a failure has no time,
    // and it enters the failure model instead.
    std::vector<std::pair<std::size_t, double>> timed;
    for (const auto& r : results_)
      if (r.time_ns) timed.emplace_back(r.index, std::log(*r.time_ns));
    const auto t = training(std::move(timed));
    GaussianProcess gp;
    const bool search = t.index.size() <= kSearchAlwaysUpTo || fits_ % kRefitEvery == 0;
    gp.fit(t.x, t.y, previous_ ? &*previous_ : nullptr, search);
    ++fits_;
    previous_ = gp;

    std::vector<std::size_t> candidates;
    for (std::size_t j = 0; j < space_.size(); ++j)
      if (!spent(j)) candidates.push_back(j);
    if (candidates.size() > kMaxCandidates) {
      for (std::size_t i = 0; i < kMaxCandidates; ++i)
        std::swap(candidates[i], candidates[i + rng_() % (candidates.size() - i)]);
      candidates.resize(kMaxCandidates);
      if (best_)
        for (auto n : space_.neighbours(best_->index))
          if (!spent(n) && std::find(candidates.begin(), candidates.end(), n) == candidates.end())
            candidates.push_back(n);
    }
    if (candidates.empty()) return {};
    const auto m = static_cast<Eigen::Index>(candidates.size());
    const auto d = static_cast<Eigen::Index>(space_.feature_count());
    Eigen::MatrixXd c(m, d);
    for (Eigen::Index j = 0; j < m; ++j) c.row(j) = features(candidates[static_cast<std::size_t>(j)]);
    const auto post = gp.posterior(c);
    Eigen::VectorXd variance = 1.0 - post.v.colwise().squaredNorm().transpose().array();
    const double incumbent = best_ ? gp.standardise(std::log(*best_->time_ns)) : t.y.minCoeff();
    const Eigen::VectorXd fails = failure_chance(gp, c);
    const Eigen::VectorXd cost = relative_cost(c);

    std::vector<std::size_t> out;
    std::vector<bool> taken(candidates.size(), false);
    std::vector<Eigen::VectorXd> updates;  // believer corrections, one per pick
    // Half of each batch exploits: the neighbours of the fastest config that
    // the GP predicts fastest (and that are likelier to work than not).
    // Expected improvement fills the rest; on a few hundred configs with a
    // handful of near-best ones, pure EI spends too much of a batch
    // exploring.
    std::vector<std::size_t> near;
    std::size_t local_quota = count / 2;
    if (best_) near = space_.neighbours(best_->index);
    // Past `count`, the picks are only guesses at the next batch (upcoming,
    // compiled ahead): the loop asks for one batch's worth (tuner/session.cpp).
    while (out.size() + upcoming_.size() < 2 * count && out.size() + upcoming_.size() < candidates.size()) {
      const bool guess = out.size() >= count;
      Eigen::Index pick = -1;
      double best_value = -1;
      const bool local = !guess && out.size() < local_quota;
      for (Eigen::Index j = 0; j < m; ++j) {
        if (taken[static_cast<std::size_t>(j)]) continue;
        if (local) {
          if (fails(j) > 0.5 || cost(j) > kLocalCostLimit) continue;
          if (std::find(near.begin(), near.end(), candidates[static_cast<std::size_t>(j)]) == near.end()) continue;
          if (-post.mean(j) > best_value || pick < 0) {
            best_value = -post.mean(j);
            pick = j;
          }
          continue;
        }
        const double sigma = std::sqrt(std::max(variance(j), 1e-12));
        const double gain = incumbent - post.mean(j) - kExploration;
        const double z = gain / sigma;
        const double ei = gain * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sigma * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
        // Expected improvement per second, where it does not fail.
        const double value = ei * (1 - fails(j)) / cost(j);
        if (value > best_value) {
          best_value = value;
          pick = j;
        }
      }
      if (pick < 0 && local) {  // no unspent neighbour left
        local_quota = 0;
        continue;
      }
      if (pick < 0) break;
      taken[static_cast<std::size_t>(pick)] = true;
      if (guess) {
        upcoming_.push_back(candidates[static_cast<std::size_t>(pick)]);
      } else {
        out.push_back(candidates[static_cast<std::size_t>(pick)]);
        spend(out.back());
      }
      // Posterior covariance of every candidate with the pick, given the
      // earlier picks as (believed) observations.
      Eigen::VectorXd cov(m);
      for (Eigen::Index j = 0; j < m; ++j) {
        double v = gp.kernel(c.row(j).transpose(), c.row(pick).transpose()) - post.v.col(j).dot(post.v.col(pick));
        for (const auto& u : updates) v -= u(j) * u(pick);
        cov(j) = v;
      }
      const double denominator = std::max(variance(pick), 0.0) + gp.noise();
      Eigen::VectorXd u = cov / std::sqrt(denominator);
      variance.array() -= u.array().square();
      updates.push_back(std::move(u));
    }
    return out;
  }

  std::vector<std::size_t> upcoming(std::size_t count) const override {
    // The best config's neighbours first (the exploiting half of the next
    // batch comes from them), then the GP's further picks.
    std::vector<std::size_t> out;
    if (best_)
      for (auto index : space_.neighbours(best_->index))
        if (out.size() < count && !spent(index)) out.push_back(index);
    for (auto index : upcoming_)
      if (out.size() < count && !spent(index) && std::find(out.begin(), out.end(), index) == out.end())
        out.push_back(index);
    return out;
  }

  std::mt19937_64 rng_;
  std::vector<std::size_t> upcoming_;
  std::optional<GaussianProcess> previous_;       // its length scales start the next fit
  std::optional<GaussianProcess> cost_previous_;  // the same for the cost model
  std::size_t fits_ = 0;
};

const bool surrogate_registered = register_strategy(
    {kSurrogateStrategy, "a Gaussian-process model of log time with expected improvement (learns from every result)",
     [](const StrategyContext& c) { return std::make_unique<SurrogateStrategy>(c); }});

}  // namespace
}  // namespace vktune
