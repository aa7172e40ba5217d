#include "tuner/search/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/transfer.hpp"

namespace vktune {

namespace {

struct Group {
  std::string device, shape, cache_mode;
  kernels::Shape parsed;
  std::vector<kernels::Config> configs;
  std::vector<std::optional<double>> times;
};

// Each evaluation returns the stored result; nothing to prepare.
class StoredEvaluator final : public BatchEvaluator {
 public:
  StoredEvaluator(const Group& group, const SearchSpace& space, std::vector<double>& best_after)
      : group_(group), space_(space), best_after_(best_after) {}
  void prepare(const std::vector<std::size_t>&) override {}
  Observation evaluate(std::size_t index) override {
    const auto& time = times_[index];
    if (time && (!best_ || *time < *best_)) best_ = time;
    best_after_.push_back(best_ ? *best_ : INFINITY);
    return {index, time};
  }
  void bind() {
    times_.assign(space_.size(), std::nullopt);
    for (std::size_t i = 0; i < group_.configs.size(); ++i) times_[*space_.index_of(group_.configs[i])] = group_.times[i];
  }

 private:
  const Group& group_;
  const SearchSpace& space_;
  std::vector<double>& best_after_;
  std::vector<std::optional<double>> times_;
  std::optional<double> best_;
};

std::vector<std::size_t> best_indices(const Group& group, std::size_t count) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < group.times.size(); ++i)
    if (group.times[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return *group.times[a] < *group.times[b]; });
  if (order.size() > count) order.resize(count);
  return order;
}

}  // namespace

std::vector<ReplayRecord> replay_records(const std::string& kernel, const std::vector<results::MeasurementRow>& rows) {
  std::vector<ReplayRecord> records;
  for (const auto& row : rows) {
    // A confirmation re-times only the finalists: replay what the search saw.
    if (row.kernel != kernel || row.measurement.phase != results::Phase::search) continue;
    ReplayRecord r;
    r.device = row.device.name + " #" + std::to_string(row.device_row);
    r.shape = row.measurement.shape;
    r.cache_mode = row.measurement.cache_mode;
    r.config = kernels::config_from_json(row.config_json);
    if (row.measurement.status == results::Status::ok) r.time_ns = row.measurement.median_ns;
    records.push_back(std::move(r));
  }
  return records;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double ReplayResult::median_quality() const { return median(quality); }
double ReplayResult::p10_quality() const { return percentile(quality, 0.1); }
double ReplayResult::median_share_1pct() const { return median(share_1pct); }
double ReplayResult::p90_share_1pct() const { return percentile(share_1pct, 0.9); }
double ReplayResult::median_share_3pct() const { return median(share_3pct); }
double ReplayResult::p90_share_3pct() const { return percentile(share_3pct, 0.9); }

ReplayReport replay(const kernels::Kernel& kernel, const std::vector<ReplayRecord>& records,
                    const ReplayOptions& options) {
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  for (const auto& r : records) {
    auto& g = groups[{r.device, r.shape, r.cache_mode}];
    if (g.configs.empty()) {
      g.device = r.device;
      g.shape = r.shape;
      g.cache_mode = r.cache_mode;
      g.parsed = kernels::parse_shape(r.shape, kernel.shape_dims().size());
    }
    // A config measured twice (a re-timed variant) keeps its faster time.
    const auto at = std::find(g.configs.begin(), g.configs.end(), r.config);
    if (at == g.configs.end()) {
      g.configs.push_back(r.config);
      g.times.push_back(r.time_ns);
    } else {
      auto& t = g.times[static_cast<std::size_t>(at - g.configs.begin())];
      if (r.time_ns && (!t || *r.time_ns < *t)) t = r.time_ns;
    }
  }
  if (groups.empty()) throw Error(ErrorKind::usage, "no measurements of " + kernel.name() + " to replay");

  ReplayReport report;
  std::vector<const Group*> chosen;
  bool shape_found = false;
  for (const auto& [key, g] : groups) {
    if (options.shape && g.shape != *options.shape) continue;
    shape_found = true;
    const auto timed = static_cast<std::size_t>(std::count_if(g.times.begin(), g.times.end(),
                                                              [](const auto& t) { return t.has_value(); }));
    if (g.configs.size() < kMinReplayMeasurements || timed == 0) {
      const auto why = "shape " + g.shape + " has " + std::to_string(g.configs.size()) + " measurements (" +
                       std::to_string(timed) + " timed); a replay needs at least " +
                       std::to_string(kMinReplayMeasurements);
      if (options.shape) throw Error(ErrorKind::usage, kernel.name() + ": " + why);
      report.skipped.push_back(why);
      continue;
    }
    chosen.push_back(&g);
  }
  if (options.shape && !shape_found) {
    std::string shapes;
    for (const auto& [key, g] : groups) shapes += (shapes.empty() ? "" : " ") + g.shape;
    throw Error(ErrorKind::usage, "no measurements of " + kernel.name() + " at shape " + *options.shape +
                                      "; measured shapes: " + shapes);
  }
  if (chosen.empty()) throw Error(ErrorKind::usage, kernel.name() + ": no shape has enough measurements to replay");

  for (const Group* g : chosen) {
    const auto& spaces = kernel.spaces();
    const SearchSpace space(spaces.at(kernel.space_index(g->parsed)).parameters, g->configs);
    ReplayResult result;
    result.device = g->device;
    result.shape = g->shape;
    result.cache_mode = g->cache_mode;
    result.space = space.size();
    result.budget = options.budget ? std::min(*options.budget, space.size()) : space.size();
    for (const auto& t : g->times)
      if (t && (result.best_ns == 0 || *t < result.best_ns)) result.best_ns = *t;

    std::vector<std::size_t> seeds;
    if (options.transfer) {
      std::vector<kernels::Shape> others;
      std::map<kernels::Shape, const Group*> by_shape;
      for (const auto& [key, other] : groups) {
        if (other.device != g->device || other.cache_mode != g->cache_mode || &other == g) continue;
        others.push_back(other.parsed);
        by_shape[other.parsed] = &other;
      }
      const auto near = nearest_shapes(kernel, g->parsed, others, 1);
      if (!near.empty()) {
        const Group* sibling = by_shape.at(near.front());
        result.transfer_from = sibling->shape;
        for (auto i : best_indices(*sibling, kTransferTop))
          if (auto index = space.index_of(sibling->configs[i])) seeds.push_back(*index);
        result.seeds = seeds.size();
      }
    }

    for (std::size_t run = 0; run < options.runs; ++run) {
      const auto seed = Hasher().add(options.seed).add(g->shape).add(g->cache_mode).add(run).value();
      auto strategy = make_strategy(options.strategy, {space, seed, true});
      AnyStopCondition stop;
      stop.add(stop_after_variants(result.budget));
      SearchLoop loop(space, *strategy, stop, options.batch, result.budget);
      loop.add_seeds(seeds);
      std::vector<double> best_after;
      StoredEvaluator evaluator(*g, space, best_after);
      evaluator.bind();
      run_search(loop, evaluator, [] { return std::chrono::steady_clock::time_point{}; }, 0);
      const double found = best_after.empty() ? INFINITY : best_after.back();
      result.quality.push_back(std::isfinite(found) ? result.best_ns / found : 0.0);
      auto share_within = [&](double margin) {
        for (std::size_t i = 0; i < best_after.size(); ++i)
          if (best_after[i] <= result.best_ns * (1 + margin)) return static_cast<double>(i + 1) / space.size();
        return static_cast<double>(space.size() + 1) / space.size();  // never: above 1
      };
      result.share_1pct.push_back(share_within(0.01));
      result.share_3pct.push_back(share_within(0.03));
    }
    report.shapes.push_back(std::move(result));
  }
  return report;
}

}  // namespace vktune
