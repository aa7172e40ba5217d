#include "tuner/search/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "engine/stale_config.hpp"
#include "results/capped_json.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/transfer.hpp"

namespace vktune {

namespace {

// The stored results of one (device, shape, cache mode), each config once,
// brought up to date with the kernel's parameters.
struct Group {
  std::string device, shape, cache_mode;
  std::int64_t device_row = 0;
  std::uint32_t vendor_id = 0, device_id = 0;
  kernels::Shape parsed;
  std::vector<kernels::Config> configs;
  std::vector<std::optional<double>> times;
  std::vector<results::Status> statuses;
  std::vector<double> seconds;  // stored durations, s; 0 where none were stored
  std::vector<double> preparation;  // of them, compile and pipeline
  std::vector<std::vector<vk::PipelineStatistic>> statistics;  // empty where none were stored
  std::optional<std::size_t> winner;  // the stored winner's row, where the file marks it
  std::size_t stale = 0;
  std::string stale_note;  // why the first stale config was left out

  std::size_t timed() const {
    return static_cast<std::size_t>(std::count_if(times.begin(), times.end(), [](const auto& t) { return t.has_value(); }));
  }
  // Successful configs, fastest first.
  std::vector<std::size_t> fastest() const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < times.size(); ++i)
      if (times[i]) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return *times[a] < *times[b]; });
    return order;
  }
};

using GroupKey = std::tuple<std::string, std::string, std::string>;

// Each evaluation returns the stored result and advances a simulated clock
// by what it cost; nothing to prepare.
class StoredEvaluator final : public BatchEvaluator {
 public:
  StoredEvaluator(const Group& group, const SearchSpace& space, bool hide_costs, bool defer_spills)
      : space_(space),
        hide_costs_(hide_costs),
        times_(space.size()),
        statuses_(space.size(), results::Status::ok),
        seconds_(space.size(), 0.0),
        preparation_(space.size(), 0.0),
        spills_(space.size(), false) {
    // The driver's zero of each statistic: its smallest value at this shape.
    std::map<std::string, double> zero;
    for (const auto& statistics : group.statistics) {
      for (const auto& s : statistics) {
        const auto [at, fresh] = zero.try_emplace(s.name, s.value);
        if (!fresh) at->second = std::min(at->second, s.value);
      }
    }
    std::vector<vk::PipelineStatistic> floor;
    for (const auto& [name, value] : zero) floor.push_back({name, value});
    for (std::size_t i = 0; i < group.configs.size(); ++i) {
      const auto index = *space_.index_of(group.configs[i]);
      times_[index] = group.times[i];
      statuses_[index] = group.statuses[i];
      seconds_[index] = group.seconds[i];
      preparation_[index] = group.preparation[i];
      spills_[index] = defer_spills && vk::spill_measure(group.statistics[i], floor) > 0;
    }
  }
  void prepare(const std::vector<std::size_t>&) override {}
  // A deferred config's compile and pipeline are spent when it is
  // deferred; measuring it at the end costs the rest.
  std::optional<double> defer(std::size_t index) override {
    if (!spills_[index]) return std::nullopt;
    clock += preparation_[index];
    seconds_[index] -= preparation_[index];
    const double price = preparation_[index];
    preparation_[index] = 0;
    return hide_costs_ ? 0.0 : price;
  }
  Observation evaluate(std::size_t index) override {
    const auto& time = times_.at(index);
    if (time && (!best_ || *time < *best_)) best_ = time;
    best_after.push_back(best_ ? *best_ : INFINITY);
    const double cost = seconds_[index] > 0 ? seconds_[index] : kAssumedSecondsPerVariant;
    clock += cost;
    clock_after.push_back(clock);
    // The strategy learns only what was stored, never the assumed cost.
    return {index, time, statuses_[index], hide_costs_ ? 0.0 : seconds_[index]};
  }
  std::vector<double> best_after;   // the best time known after each evaluation
  std::vector<double> clock_after;  // the simulated seconds after each evaluation
  double clock = 0;

 private:
  const SearchSpace& space_;
  bool hide_costs_;
  std::vector<std::optional<double>> times_;
  std::vector<results::Status> statuses_;
  std::vector<double> seconds_;
  std::vector<double> preparation_;  // compile and pipeline, until deferred
  std::vector<bool> spills_;
  std::optional<double> best_;
};

// The stored shapes as a tune's transfer seeding sees its store: a shape is
// tuned where it has a timed result; its winner is the row the file marks,
// and its measured configs come fastest first.
class StoredTransferSource final : public TransferSource {
 public:
  StoredTransferSource(const std::map<GroupKey, Group>& groups, const Group& target) : target_(target) {
    for (const auto& [key, g] : groups) {
      if (g.cache_mode != target.cache_mode || g.timed() == 0) continue;
      if (g.device != target.device && (g.vendor_id != target.vendor_id || g.device_id != target.device_id)) continue;
      by_device_[g.device_row].push_back(&g);
    }
  }
  std::vector<std::int64_t> devices() const override {
    std::vector<std::int64_t> out{target_.device_row};
    for (const auto& [row, gs] : by_device_)
      if (row != target_.device_row) out.push_back(row);
    return out;
  }
  std::vector<kernels::Shape> tuned_shapes(std::int64_t device) const override {
    std::vector<kernels::Shape> out;
    if (const auto it = by_device_.find(device); it != by_device_.end())
      for (const Group* g : it->second) out.push_back(g->parsed);
    return out;
  }
  std::optional<kernels::Config> winner(std::int64_t device, const kernels::Shape& shape) const override {
    const Group* g = find(device, shape);
    if (!g || !g->winner) return std::nullopt;
    return g->configs[*g->winner];
  }
  void fastest(std::int64_t device, const kernels::Shape& shape,
               const std::function<bool(const kernels::Config&)>& take) const override {
    if (const Group* g = find(device, shape))
      for (auto i : g->fastest())
        if (!take(g->configs[i])) break;
  }

 private:
  const Group* find(std::int64_t device, const kernels::Shape& shape) const {
    if (const auto it = by_device_.find(device); it != by_device_.end())
      for (const Group* g : it->second)
        if (g->parsed == shape) return g;
    return nullptr;
  }
  const Group& target_;
  std::map<std::int64_t, std::vector<const Group*>> by_device_;
};

// The kernel's enumeration order (tuner/space.cpp): path by path, each
// path's cartesian product with its last parameter fastest; configs no path
// holds (an earlier vocabulary's) last, in the order of their values (never
// the stored order, which is fastest first).
std::vector<kernels::Config> in_enumeration_order(const kernels::Space& space, std::vector<kernels::Config> configs) {
  const auto paths = space.effective_paths();
  auto key = [&](const kernels::Config& c) {
    std::vector<std::size_t> k;
    for (std::size_t p = 0; p < paths.size(); ++p) {
      bool fits = true;
      std::vector<std::size_t> positions;
      for (const auto& [name, value] : paths[p].pinned) {
        const auto it = c.find(name);
        fits = fits && it != c.end() && it->second == value;
      }
      for (const auto& param : paths[p].parameters) {
        const auto it = c.find(param.name);
        const auto at = it == c.end() ? param.values.end() : std::find(param.values.begin(), param.values.end(), it->second);
        fits = fits && at != param.values.end();
        positions.push_back(static_cast<std::size_t>(at - param.values.begin()));
      }
      if (!fits) continue;
      k.push_back(p);
      k.insert(k.end(), positions.begin(), positions.end());
      return k;
    }
    k.push_back(paths.size());
    return k;
  };
  std::vector<std::pair<std::vector<std::size_t>, std::size_t>> keyed;
  for (std::size_t i = 0; i < configs.size(); ++i) keyed.emplace_back(key(configs[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return configs[a.second] < configs[b.second];
  });
  std::vector<kernels::Config> out;
  for (const auto& [k, i] : keyed) out.push_back(std::move(configs[i]));
  return out;
}

// Configs of one group in one vocabulary: those today's kernel reads (as
// they are, or completed as a tune completes a config stored before the
// kernel gained a parameter), when enough of them were measured for a
// replay; else, where the group was measured in an earlier vocabulary, the
// largest set of configs that share one (a landscape of its own, which a
// search over those parameters sees as a tune then did). The others are
// left out and counted as stale.
std::vector<ReplayRecord> one_vocabulary(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                         std::vector<ReplayRecord> records, std::size_t& stale, std::string& note) {
  std::vector<ReplayRecord> current;
  std::map<std::set<std::string>, std::vector<ReplayRecord>> earlier;
  std::set<kernels::Config> distinct;
  for (auto& r : records) {
    auto update = update_config(kernel, shape, r.config);
    if (update.config) {
      r.config = std::move(*update.config);
      distinct.insert(r.config);
      current.push_back(std::move(r));
    } else {
      if (note.empty()) note = update.note;
      std::set<std::string> names;
      for (const auto& [name, value] : r.config) names.insert(name);
      earlier[names].push_back(std::move(r));
    }
  }
  const std::vector<ReplayRecord>* largest = nullptr;
  for (const auto& [names, rs] : earlier)
    if (!largest || rs.size() > largest->size()) largest = &rs;
  if (distinct.size() >= kMinReplayMeasurements || !largest || largest->size() <= current.size()) {
    stale = records.size() - current.size();
    return current;
  }
  stale = records.size() - largest->size();
  note = "replayed in an earlier vocabulary of " + kernel.name() + "'s parameters (" + note + ")";
  return *largest;
}

std::map<GroupKey, Group> group_records(const kernels::Kernel& kernel, const std::vector<ReplayRecord>& all) {
  std::map<GroupKey, std::vector<ReplayRecord>> by_key;
  for (const auto& r : all) by_key[{r.device, r.shape, r.cache_mode}].push_back(r);
  std::vector<ReplayRecord> records;
  std::map<GroupKey, Group> groups;
  for (auto& [key, rs] : by_key) {
    auto& g = groups[key];
    const auto& r = rs.front();
    g.device = r.device;
    g.device_row = r.device_row;
    g.vendor_id = r.vendor_id;
    g.device_id = r.device_id;
    g.shape = r.shape;
    g.cache_mode = r.cache_mode;
    try {
      g.parsed = kernels::parse_shape(r.shape, kernel.shape_dims().size());
    } catch (const Error& e) {
      throw Error(ErrorKind::format, "a stored shape of " + kernel.name() + " is not one: " + e.what());
    }
    for (auto& kept : one_vocabulary(kernel, g.parsed, std::move(rs), g.stale, g.stale_note))
      records.push_back(std::move(kept));
  }
  std::map<GroupKey, std::set<kernels::Config>> winners;
  for (const auto& r : records) {
    auto& g = groups.at({r.device, r.shape, r.cache_mode});
    const auto& config = r.config;
    if (r.is_winner) winners[{r.device, r.shape, r.cache_mode}].insert(config);
    // A config measured twice (a re-timed variant, an earlier vocabulary's
    // twin) keeps its faster time; a failure gives way to a success.
    const auto at = std::find(g.configs.begin(), g.configs.end(), config);
    if (at == g.configs.end()) {
      g.configs.push_back(config);
      g.times.push_back(r.time_ns);
      g.statuses.push_back(r.status);
      g.seconds.push_back(r.durations.total_ms() / 1000.0);
      g.preparation.push_back(r.durations.preparation_ms() / 1000.0);
      g.statistics.push_back(r.statistics);
    } else {
      const auto i = static_cast<std::size_t>(at - g.configs.begin());
      if (r.time_ns && (!g.times[i] || *r.time_ns < *g.times[i])) {
        g.times[i] = r.time_ns;
        g.statuses[i] = r.status;
        g.seconds[i] = r.durations.total_ms() / 1000.0;
        g.preparation[i] = r.durations.preparation_ms() / 1000.0;
        g.statistics[i] = r.statistics;
      }
    }
  }
  for (auto& [key, g] : groups) {
    const auto w = winners.find(key);
    if (w == winners.end()) continue;
    for (std::size_t i = 0; i < g.configs.size(); ++i)
      if (w->second.count(g.configs[i]) && g.times[i] && (!g.winner || *g.times[i] < *g.times[*g.winner])) g.winner = i;
  }
  return groups;
}

}  // namespace

std::vector<ReplayRecord> replay_records(const std::string& kernel, const std::vector<results::MeasurementRow>& rows) {
  std::vector<ReplayRecord> records;
  // The winner of a key may have been chosen from its confirmation row: the
  // search row of the same variant carries the mark in a replay.
  std::set<std::tuple<std::int64_t, std::string, std::string, std::string>> winners;
  for (const auto& row : rows)
    if (row.kernel == kernel && row.is_winner)
      winners.insert({row.device_row, row.measurement.shape, row.measurement.cache_mode, row.config_json});
  for (const auto& row : rows) {
    // A confirmation re-times only the finalists: replay what the search saw.
    if (row.kernel != kernel || row.measurement.phase != results::Phase::search) continue;
    ReplayRecord r;
    r.device = row.device.name + " #" + std::to_string(row.device_row);
    r.device_row = row.device_row;
    r.vendor_id = row.device.vendor_id;
    r.device_id = row.device.device_id;
    r.shape = row.measurement.shape;
    r.cache_mode = row.measurement.cache_mode;
    r.config = kernels::config_from_json(row.config_json);
    r.status = row.measurement.status;
    if (row.measurement.status == results::Status::ok) r.time_ns = row.measurement.median_ns;
    r.is_winner = winners.count({row.device_row, r.shape, r.cache_mode, row.config_json}) > 0;
    r.durations = row.measurement.durations;
    // Checked when the file was read (results/import_csv.cpp) or written by
    // this vktune (a database): an object of numbers, or nothing.
    if (const auto parsed = results::parse_capped_json(row.measurement.statistics_json);
        parsed.error.empty() && parsed.value.is_object()) {
      for (const auto& [name, value] : parsed.value.items())
        if (value.is_number()) r.statistics.push_back({name, value.get<double>()});
    }
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
double ReplayResult::median_evaluations_1pct() const { return median(evaluations_1pct); }
double ReplayResult::p90_evaluations_1pct() const { return percentile(evaluations_1pct, 0.9); }
double ReplayResult::median_seconds_1pct() const { return median(seconds_1pct); }
double ReplayResult::p90_seconds_1pct() const { return percentile(seconds_1pct, 0.9); }

ReplayReport replay(const kernels::Kernel& kernel, const std::vector<ReplayRecord>& records,
                    const ReplayOptions& options) {
  const auto groups = group_records(kernel, records);
  if (groups.empty()) throw Error(ErrorKind::usage, "no measurements of " + kernel.name() + " to replay");

  ReplayReport report;
  std::vector<const Group*> chosen;
  bool shape_found = false;
  for (const auto& [key, g] : groups) {
    if (options.shape && g.shape != *options.shape) continue;
    shape_found = true;
    const auto timed = g.timed();
    if (g.configs.size() < kMinReplayMeasurements || timed == 0) {
      auto why = "shape " + g.shape + " has " + std::to_string(g.configs.size()) + " measurements (" +
                 std::to_string(timed) + " timed); a replay needs at least " + std::to_string(kMinReplayMeasurements);
      if (g.stale) why += " (" + std::to_string(g.stale) + " stored configs left out: " + g.stale_note + ")";
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
    const auto& kernel_space = kernel.spaces().at(kernel.space_index(g->parsed));
    const SearchSpace space(kernel_space.parameters, in_enumeration_order(kernel_space, g->configs));
    ReplayResult result;
    result.device = g->device;
    result.shape = g->shape;
    result.cache_mode = g->cache_mode;
    result.space = space.size();
    result.stale = g->stale;
    result.budget = options.budget ? std::min(*options.budget, space.size()) : space.size();
    result.bounded = result.budget < space.size() || options.time_seconds.has_value();
    const auto stored = static_cast<std::size_t>(
        std::count_if(g->seconds.begin(), g->seconds.end(), [](double s) { return s > 0; }));
    result.durations = stored == g->seconds.size() ? "stored" : stored == 0 ? "assumed" : "mixed";
    for (const auto& t : g->times)
      if (t && (result.best_ns == 0 || *t < result.best_ns)) result.best_ns = *t;
    // The tune evaluates the kernel's baseline first; a replay can where it
    // was measured.
    const auto baseline = space.index_of(kernel.baseline(g->parsed));
    result.baseline_measured = baseline.has_value();

    std::vector<std::size_t> seeds;
    if (options.transfer) {
      const auto found = transfer_seeds(kernel, g->parsed, StoredTransferSource(groups, *g));
      result.transfer_from = found.from;
      for (const auto& config : found.configs)
        if (auto index = space.index_of(config))
          if (std::find(seeds.begin(), seeds.end(), *index) == seeds.end()) seeds.push_back(*index);
      result.seeds = seeds.size();
    }

    for (std::size_t run = 0; run < options.runs; ++run) {
      const auto seed = Hasher().add(options.seed).add(g->shape).add(g->cache_mode).add(run).value();
      auto strategy = make_strategy(options.strategy, {space, seed, result.bounded});
      StoredEvaluator evaluator(*g, space, options.hide_costs, options.pipeline_statistics);
      // The simulated clock: a tune's --time stops the search before the
      // first evaluation past its deadline.
      const std::chrono::steady_clock::time_point epoch{};
      auto now = [&] {
        return epoch + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(evaluator.clock));
      };
      AnyStopCondition stop;
      stop.add(stop_after_variants(result.budget));
      if (options.stop_within) stop.add(stop_at_target(result.best_ns, *options.stop_within));
      if (options.time_seconds) {
        stop.add(stop_at(epoch + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(*options.time_seconds))));
      }
      SearchLoop loop(space, *strategy, stop, options.batch, result.budget);
      loop.add_seeds(seeds);
      if (baseline) {
        const auto observed = evaluator.evaluate(*baseline);
        if (observed.time_ns) result.baseline_ns = observed.time_ns;
        loop.observe_outside(observed);
      }
      run_search(loop, evaluator, now, 0);
      const auto& best_after = evaluator.best_after;
      const double found = best_after.empty() ? INFINITY : best_after.back();
      result.quality.push_back(std::isfinite(found) ? result.best_ns / found : 0.0);
      // The evaluations before the best found came within `margin`, or none.
      auto reached = [&](double margin) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < best_after.size(); ++i)
          if (best_after[i] <= result.best_ns * (1 + margin)) return i + 1;
        return std::nullopt;
      };
      auto share = [&](std::optional<std::size_t> n) {
        return static_cast<double>(n ? *n : space.size() + 1) / static_cast<double>(space.size());  // never: above 1
      };
      const auto one = reached(0.01);
      result.share_1pct.push_back(share(one));
      result.share_3pct.push_back(share(reached(0.03)));
      result.evaluations_1pct.push_back(one ? static_cast<double>(*one) : INFINITY);
      result.seconds_1pct.push_back(one ? evaluator.clock_after[*one - 1] : INFINITY);
      result.seconds_used.push_back(evaluator.clock);
    }
    report.shapes.push_back(std::move(result));
  }
  return report;
}

}  // namespace vktune
