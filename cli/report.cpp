#include "cli/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "engine/statistics_json.hpp"
#include "results/browse.hpp"
#include "tuner/search/importance.hpp"

namespace vktune {

namespace {

// The fraction of the device ceiling this result reaches: memory-bound
// kernels against read bandwidth, compute-bound ones against the FMA rate (or
// the tensor cores' on a tensor-core path, results::percent_of_compute),
// whichever is the larger share (that is the resource the kernel is bound by).
std::optional<double> percent_of_peak(const kernels::Kernel& kernel, const kernels::Shape& shape, const Outcome& o,
                                      const std::optional<Ceilings>& ceilings) {
  if (!ceilings || o.status != results::Status::ok) return std::nullopt;
  double pct = 0;
  if (ceilings->read_gbps > 0) pct = std::max(pct, 100.0 * o.gbps / ceilings->read_gbps);
  pct = std::max(pct, results::percent_of_compute(o.gflops, ceilings->fp32_gflops, ceilings->tensor_gflops,
                                                  kernels::on_tensor_cores(kernel, o.config, shape)));
  return pct;
}

std::vector<const Outcome*> ranked(const ShapeResult& r) {
  std::vector<const Outcome*> ok;
  for (const auto& o : r.outcomes)
    if (o.status == results::Status::ok) ok.push_back(&o);
  std::sort(ok.begin(), ok.end(), [](const Outcome* a, const Outcome* b) { return a->timing.median < b->timing.median; });
  return ok;
}

// Each parameter's share of the variance, and its value in the winner (the
// variant the run stored, which the confirmation pass may have picked over
// the search's fastest).
std::vector<ParameterImportance> importance_of(const ShapeResult& r) {
  std::vector<std::pair<kernels::Config, double>> timed;
  for (const auto& o : r.outcomes)
    if (o.status == results::Status::ok && o.timing.median > 0) timed.emplace_back(o.config, o.timing.median);
  auto importance = parameter_importance(timed);
  if (r.winner) {
    const auto& winner = r.outcomes[*r.winner].config;
    for (auto& p : importance)
      if (const auto it = winner.find(p.name); it != winner.end()) p.best_value = it->second;
  }
  return importance;
}

// Where a shape's time went, summed over the variants this run measured
// (resumed ones cost nothing): the search, and the confirmation pass.
struct TimeSpent {
  results::PhaseDurations search, confirm;
  std::size_t measured = 0, confirmed = 0;
};

TimeSpent time_spent(const ShapeResult& r) {
  TimeSpent t;
  for (const auto& o : r.outcomes) {
    t.search += o.durations;
    t.confirm += o.confirm_durations;
    t.measured += !o.resumed;
    t.confirmed += o.confirmed && !o.is_baseline;
  }
  return t;
}

nlohmann::json seconds_json(const results::PhaseDurations& d) {
  return {{"compile", d.compile_ms / 1e3},
          {"pipeline", d.pipeline_ms / 1e3},
          {"validation", d.validation_ms / 1e3},
          {"warmup", d.warmup_ms / 1e3},
          {"timing", d.timing_ms / 1e3}};
}

double variants_per_second(const ShapeResult& r) {
  return r.search_seconds > 0 ? static_cast<double>(r.outcomes.size()) / r.search_seconds : 0.0;
}

}  // namespace

// What creating a pipeline here from its worker's cache cost: the median
// and the largest, ms; null without workers.
nlohmann::json cache_hits_json(const ShapeResult& r) {
  if (r.cached_pipeline_ms.empty()) return nullptr;
  auto ms = r.cached_pipeline_ms;
  std::sort(ms.begin(), ms.end());
  return {{"count", ms.size()}, {"median_ms", ms[ms.size() / 2]}, {"max_ms", ms.back()}};
}

nlohmann::json time_spent_json(const ShapeResult& r) {
  const auto t = time_spent(r);
  return {{"search",
           {{"seconds", seconds_json(t.search)},
            {"variants_measured", t.measured},
            {"wall_seconds", r.search_seconds},
            {"proposal_seconds", r.proposal_seconds},
            {"compile_wait_seconds", r.compile_wait_seconds},
            {"variants_per_second", variants_per_second(r)}}},
          {"confirm",
           {{"seconds", seconds_json(t.confirm)},
            {"variants", t.confirmed},
            {"rounds", r.confirm_rounds},
            {"wall_seconds", r.confirm_seconds}}},
          {"pipeline_cache_hits", cache_hits_json(r)},
          {"setup", {{"wall_seconds", r.setup_seconds}}},
          {"final_check", {{"wall_seconds", r.final_check_seconds}}}};
}

nlohmann::json outcome_json(const Outcome& o) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [name, value] : o.config) config[name] = value;
  nlohmann::json j = {{"config", config},
                      {"variant_hash", o.variant_hash},
                      {"status", std::string(results::to_string(o.status))},
                      {"baseline", o.is_baseline},
                      {"resumed", o.resumed},
                      {"confirmed", o.confirmed},
                      {"transfer_seed", o.transfer_seed},
                      {"rel_l2_error", o.validation.rel_l2},
                      {"max_abs_error", o.validation.max_abs}};
  if (o.status == results::Status::ok && o.timing.count > 0) {
    j["median_ns"] = o.timing.median;
    j["min_ns"] = o.timing.min;
    j["p10_ns"] = o.timing.p10;
    j["p90_ns"] = o.timing.p90;
    j["mad_ns"] = o.timing.mad;
    j["gbps"] = o.gbps;
    j["gflops"] = o.gflops;
  }
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (!o.statistics.empty()) j["pipeline_statistics"] = statistics_json(o.statistics);
  return j;
}

nlohmann::json shape_report_json(const kernels::Kernel& kernel, const ShapeResult& r,
                                 const std::optional<Ceilings>& ceilings) {
  nlohmann::json outcomes = nlohmann::json::array();
  for (const auto* o : ranked(r)) {
    auto j = outcome_json(*o);
    if (auto pct = percent_of_peak(kernel, r.shape, *o, ceilings)) j["pct_peak"] = *pct;
    outcomes.push_back(j);
  }
  for (const auto& o : r.outcomes)
    if (o.status != results::Status::ok) outcomes.push_back(outcome_json(o));
  nlohmann::json j = {{"kernel", kernel.name()},
                      {"shape", kernels::shape_to_string(r.shape)},
                      {"space", r.space_name},
                      {"space_total", r.space_total},
                      {"space_filtered", r.space_filtered},
                      {"space_pruned", r.space_pruned},
                      {"space_scope", to_string(r.space_scope)},
                      {"space_valid", r.space_valid},
                      {"space_selected", r.space_selected ? nlohmann::json(*r.space_selected) : nlohmann::json()},
                      {"evaluated", r.outcomes.size()},
                      {"failures", r.failures()},
                      {"stopped_early", r.stopped_early},
                      {"strategy", r.strategy},
                      {"seed", r.seed},
                      {"stop_reason", r.stop_reason},
                      {"search_seconds", r.search_seconds},
                      {"variants_per_second", variants_per_second(r)},
                      {"time_spent", time_spent_json(r)},
                      {"deferred_spilling", r.deferred_spilling},
                      {"deferred_not_measured", r.deferred_not_measured},
                      {"transfer_from", r.transfer_from},
                      {"transfer_seeds", std::count_if(r.outcomes.begin(), r.outcomes.end(),
                                                       [](const Outcome& o) { return o.transfer_seed; })},
                      {"baseline_drift", r.drift ? nlohmann::json(*r.drift) : nlohmann::json(nullptr)},
                      {"kept_stored_winner_ns",
                       r.kept_stored_winner_ns ? nlohmann::json(*r.kept_stored_winner_ns) : nlohmann::json(nullptr)},
                      {"outcomes", outcomes}};
  nlohmann::json importance = nlohmann::json::array();
  for (const auto& p : importance_of(r))
    importance.push_back({{"parameter", p.name}, {"share_of_log_time_variance", p.share}, {"best_value", p.best_value}});
  j["parameter_importance"] = importance;
  if (r.winner) j["winner"] = outcome_json(r.outcomes[*r.winner]);
  if (r.winner && r.baseline && r.outcomes[*r.baseline].status == results::Status::ok) {
    j["speedup_over_baseline"] = r.outcomes[*r.baseline].timing.median / r.outcomes[*r.winner].timing.median;
  }
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : r.winner_stages) stages.push_back({{"template", s.template_file}, {"median_ns", s.median_ns}});
  j["winner_stages"] = stages;
  return j;
}

namespace {

// One line: each stage of a multi-stage winner, its template and time.
std::string winner_stages_line(const ShapeResult& r) {
  std::string text = "  winner's stages (launches timed stage by stage, " + std::to_string(r.winner_stages.size()) +
                     " dispatches; a stage counts the barrier before it):";
  char part[160];
  for (std::size_t s = 0; s < r.winner_stages.size(); ++s) {
    std::snprintf(part, sizeof part, "%s %s %.3f us", s == 0 ? "" : ",", r.winner_stages[s].template_file.c_str(),
                  r.winner_stages[s].median_ns / 1e3);
    text += part;
  }
  std::snprintf(part, sizeof part, "; the launch %.3f us", r.winner_stages_launch_ns / 1e3);
  return text + part;
}

}  // namespace

void print_shape_report(std::ostream& out, const kernels::Kernel& kernel, const ShapeResult& r,
                        const std::optional<Ceilings>& ceilings, std::size_t top) {
  char line[512];
  out << "\n" << kernel.name() << " " << kernels::shape_to_string(r.shape) << " (" << r.space_name << " space: "
      << r.space_total << " configs, " << r.space_filtered - r.space_pruned << " illegal, "
      << (r.space_scope == SpaceScope::full ? std::string("no pruning (--space full)")
                                            : std::to_string(r.space_pruned) + " pruned")
      << ", " << r.space_valid << " valid" << (r.space_selected ? ", " + std::to_string(*r.space_selected) + " selected by --only" : "")
      << "; " << r.outcomes.size() << " evaluated, " << r.failures() << " failed"
      << ")\n";
  if (!r.strategy.empty()) {
    const auto seeded = std::count_if(r.outcomes.begin(), r.outcomes.end(), [](const Outcome& o) { return o.transfer_seed; });
    out << "  search: " << r.strategy << " (seed " << r.seed << ")";
    if (seeded) {
      out << ", " << seeded << " transfer seeds from";
      for (const auto& f : r.transfer_from) out << " " << f;
    }
    out << "; " << (r.stop_reason.empty() ? "the space was exhausted" : "stopped: " + r.stop_reason);
    if (r.search_seconds > 0) {
      std::snprintf(line, sizeof line, "; %zu variants in %.1f s (%.1f/s)", r.outcomes.size(), r.search_seconds,
                    variants_per_second(r));
      out << line;
    }
    out << "\n";
    // Compiles run on background threads beside the device work, so the
    // steps can add up to more than the wall time.
    const auto t = time_spent(r);
    std::snprintf(line, sizeof line,
                  "  time: %zu variants measured here, compile %.1f s (in the background), pipelines %.1f s, "
                  "validation %.1f s, warm-up %.1f s, timing %.1f s\n",
                  t.measured, t.search.compile_ms / 1e3, t.search.pipeline_ms / 1e3, t.search.validation_ms / 1e3,
                  t.search.warmup_ms / 1e3, t.search.timing_ms / 1e3);
    out << line;
    // Warm-ups that waited for a clock the GPU did not give cost the search
    // its time (up to warmup_after_idle each): say how many, and how slow.
    std::size_t clock_read = 0, clock_waits = 0;
    double slowest_clock = 0;
    for (const auto& o : r.outcomes) {
      if (o.clock_ratio <= 0) continue;
      ++clock_read;
      if (!o.clock_given_up) continue;
      ++clock_waits;
      slowest_clock = std::max(slowest_clock, o.clock_ratio);
    }
    if (clock_waits > 0) {
      std::snprintf(line, sizeof line,
                    "  clock: %zu of %zu warm-ups ended without the GPU's full clock (the clock gauge took up to "
                    "%.2fx its fastest time)\n",
                    clock_waits, clock_read, slowest_clock);
      out << line;
    }
    if (const auto hits = cache_hits_json(r); !hits.is_null()) {
      std::snprintf(line, sizeof line,
                    "  pipelines: %zu created here from their workers' caches, median %.2f ms, at most %.2f ms\n",
                    hits.at("count").get<std::size_t>(), hits.at("median_ms").get<double>(),
                    hits.at("max_ms").get<double>());
      out << line;
    }
    if (r.deferred_spilling > 0) {
      std::snprintf(line, sizeof line,
                    "  spills: %zu variants whose code spills (the driver's pipeline statistics) waited until "
                    "nothing else was left; %zu of them were not measured\n",
                    r.deferred_spilling, r.deferred_not_measured);
      out << line;
    }
    if (r.confirm_rounds > 0) {
      std::snprintf(line, sizeof line,
                    "  confirmation: %zu re-timed%s, %d rounds, %.1f s: compile %.1f s, pipelines %.1f s, "
                    "warm-up %.1f s, timing %.1f s\n",
                    t.confirmed, r.baseline && r.outcomes[*r.baseline].confirmed ? " beside the baseline" : "",
                    r.confirm_rounds, r.confirm_seconds, t.confirm.compile_ms / 1e3, t.confirm.pipeline_ms / 1e3,
                    t.confirm.warmup_ms / 1e3, t.confirm.timing_ms / 1e3);
      out << line;
    }
    std::snprintf(line, sizeof line,
                  "  besides: setup %.1f s (the space, inputs, CPU references, upload), final check %.1f s\n",
                  r.setup_seconds, r.final_check_seconds);
    out << line;
  }
  const auto ok = ranked(r);
  if (ok.empty()) {
    out << "  no variant validated\n";
  } else {
    std::snprintf(line, sizeof line, "  %4s %12s %10s %10s %10s %7s  %s\n", "rank", "median_us", "p10-p90%", "GB/s",
                  "GFLOP/s", "%peak", "config");
    out << line;
    // The first `top` rows, and the winner's row wherever it ranks: the
    // table always shows the variant the run stored.
    const Outcome* winner = r.winner ? &r.outcomes[*r.winner] : nullptr;
    for (std::size_t i = 0; i < ok.size(); ++i) {
      if (i >= top && ok[i] != winner) continue;
      const auto& o = *ok[i];
      const double spread = o.timing.median > 0 ? 100.0 * (o.timing.p90 - o.timing.p10) / o.timing.median : 0;
      const auto pct = percent_of_peak(kernel, r.shape, o, ceilings);
      char pct_text[16] = "-";
      if (pct) std::snprintf(pct_text, sizeof pct_text, "%.1f", *pct);
      std::snprintf(line, sizeof line, "  %4zu %12.3f %10.1f %10.1f %10.1f %7s  %s%s\n", i + 1, o.timing.median / 1e3,
                    spread, o.gbps, o.gflops, pct_text, kernels::config_to_string(o.config).c_str(),
                    o.is_baseline ? "  (baseline)" : "");
      std::string row = line;
      row.pop_back();  // the newline
      if (o.confirmed) row += "  [re-timed]";
      if (&o == winner) row += "  <- winner";
      out << row << "\n";
    }
  }
  if (r.baseline) {
    const auto& b = r.outcomes[*r.baseline];
    if (b.status != results::Status::ok) {
      out << "  baseline failed: " << results::to_string(b.status) << ": " << b.reason << "\n";
    } else if (r.winner) {
      std::snprintf(line, sizeof line, "  winner %.3f us vs baseline %.3f us: %.2fx speedup\n",
                    r.outcomes[*r.winner].timing.median / 1e3, b.timing.median / 1e3,
                    b.timing.median / r.outcomes[*r.winner].timing.median);
      out << line;
    }
  }
  if (!r.winner_stages.empty()) out << winner_stages_line(r) << "\n";
  // The progress line showed the search's best; when the confirmation's
  // re-timing moved it or picked another winner, say so here too.
  if (r.search_best && r.winner && r.search_best_ns > 0) {
    const auto& searched = r.outcomes[*r.search_best];
    const double winner_ns = r.outcomes[*r.winner].timing.median;
    if (*r.search_best != *r.winner) {
      std::snprintf(line, sizeof line,
                    "  the confirmation pass re-timed the finalists: the search's best (%.3f us then, %s) re-timed at "
                    "%.3f us, so the winner is another variant (%.3f us)\n",
                    r.search_best_ns / 1e3, searched.is_baseline ? "the baseline" : "a variant",
                    searched.timing.median / 1e3, winner_ns / 1e3);
      out << line;
    } else if (std::abs(winner_ns - r.search_best_ns) > 0.01 * r.search_best_ns) {
      std::snprintf(line, sizeof line,
                    "  the confirmation pass re-timed the finalists: the winner took %.3f us in the search, %.3f us "
                    "re-timed\n",
                    r.search_best_ns / 1e3, winner_ns / 1e3);
      out << line;
    }
  }
  if (r.kept_stored_winner_ns) {
    std::snprintf(line, sizeof line,
                  "  the stored winner from an earlier run (%.3f us) is faster and stays the winner\n",
                  *r.kept_stored_winner_ns / 1e3);
    out << line;
  }
  if (!r.winner_not_stored.empty()) out << "  the winner is not stored: " << r.winner_not_stored << "\n";
  if (r.drift && (*r.drift > 1.25 || *r.drift < 0.8)) {
    std::snprintf(line, sizeof line,
                  "  warning: the baseline re-measured at the end took %.2fx its first time: the device's speed "
                  "changed during the run\n",
                  *r.drift);
    out << line;
  }
  const auto importance = importance_of(r);
  if (!importance.empty()) {
    out << "  parameter importance (share of log-time variance; value in the winner):";
    for (std::size_t i = 0; i < importance.size(); ++i) {
      std::snprintf(line, sizeof line, "%s %s %.0f%% (%d)", i ? "," : "", importance[i].name.c_str(),
                    100 * importance[i].share, importance[i].best_value);
      out << line;
    }
    out << "\n";
  }
  std::map<std::string, std::size_t> failures;
  for (const auto& o : r.outcomes)
    if (o.status != results::Status::ok) ++failures[std::string(results::to_string(o.status))];
  for (const auto& [status, count] : failures) out << "  " << count << " x " << status << "\n";
}

}  // namespace vktune
