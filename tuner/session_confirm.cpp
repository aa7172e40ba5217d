// TuneSession's confirmation pass: after the search, the candidates within
// a few percent of the best re-timed beside the baseline (tuner/confirmation.hpp
// picks and orders them), stored as confirm rows, the winner taken from them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "tuner/confirmation.hpp"
#include "engine/device_problem.hpp"
#include "engine/elapsed.hpp"
#include "engine/evaluator.hpp"
#include "tuner/session.hpp"
#include "engine/variant.hpp"

namespace vktune {

std::string confirmation_summary(const ShapeResult& result, std::size_t finalists) {
  const auto& winner = result.outcomes[*result.winner];
  char text[512];
  const int rounds = std::max(1, result.confirm_rounds);
  const bool beside = result.baseline && result.outcomes[*result.baseline].confirmed;
  if (result.search_best && *result.search_best == *result.winner) {
    std::snprintf(text, sizeof text,
                  "confirmation re-timed %zu finalist%s %d time%s%s: the search's best (%.2f us then) stays the "
                  "winner at %.2f us",
                  finalists, finalists == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s",
                  beside ? " beside the baseline" : "", result.search_best_ns / 1e3, winner.timing.median / 1e3);
  } else {
    const auto& searched = result.outcomes[*result.search_best];
    std::snprintf(text, sizeof text,
                  "confirmation re-timed %zu finalist%s %d time%s%s: winner %s at %.2f us; the search's best "
                  "(%.2f us) re-timed at %.2f us",
                  finalists, finalists == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s",
                  beside ? " beside the baseline" : "", kernels::config_to_string(winner.config).c_str(),
                  winner.timing.median / 1e3, result.search_best_ns / 1e3, searched.timing.median / 1e3);
  }
  return text;
}

void TuneSession::confirm(const kernels::Kernel& kernel, const kernels::Problem& problem, DeviceProblem& on_device,
                          const TuneOptions& options, ShapeResult& result) {
  const auto started = Clock::now();
  std::vector<std::optional<double>> search_ns;
  for (const auto& o : result.outcomes)
    search_ns.push_back(o.status == results::Status::ok ? std::optional(o.timing.median) : std::nullopt);
  std::optional<std::size_t> baseline;
  if (result.baseline && result.outcomes[*result.baseline].status == results::Status::ok) baseline = result.baseline;
  const auto candidates = confirmation_candidates(
      search_ns, {options.confirm_within, options.confirm_top, options.confirm_max}, baseline);
  if (candidates.empty() || (!baseline && candidates.size() < 2)) return;  // nothing to compare
  // The fastest in the search, the baseline included: what the progress
  // line called "best".
  std::size_t search_fastest = candidates.front();
  if (baseline && *search_ns[*baseline] < *search_ns[search_fastest]) search_fastest = *baseline;
  std::vector<std::size_t> timed = candidates;
  if (baseline) timed.insert(timed.begin(), *baseline);

  const auto shape_text = kernels::shape_to_string(result.shape);
  const auto metrics = kernel.metrics(result.shape);
  struct Retimed {
    CompiledVariant variant;  // a map node: stays put while its runner refers to it
    std::unique_ptr<VariantRunner> runner;
    std::vector<double> samples;
    results::PhaseDurations durations;
  };
  std::map<std::size_t, Retimed> retimed;  // by outcome index
  const auto finalists = " finalist" + std::string(candidates.size() == 1 ? "" : "s");
  try {
    std::size_t prepared = 0;
    for (std::size_t i : timed) {
      progress_.phase("confirming " + std::to_string(candidates.size()) + finalists + ": preparing " +
                      std::to_string(++prepared) + " of " + std::to_string(timed.size()));
      auto& r = retimed[i];
      r.variant = describe_variant(kernel, result.outcomes[i].config, result.shape, templates_);
      if (store_) {
        load_cached_spirv(r.variant, *store_);
      }
      if (!r.variant.compiled()) {
        AddElapsed clock{r.durations.compile_ms};
        compile_variant(r.variant, templates_);
      }
      AddElapsed clock{r.durations.pipeline_ms};
      r.runner = std::make_unique<VariantRunner>(*device_, r.variant, static_cast<std::uint32_t>(problem.buffers.size()),
                                                 static_cast<std::uint32_t>(kernel.shape_dims().size()),
                                                 on_device.copies() + 2);
    }
    const auto order = confirmation_order(candidates, baseline, options.confirm_rounds);
    for (std::size_t k = 0; k < order.size(); ++k) {
      progress_.phase("confirming " + std::to_string(candidates.size()) + finalists + ": timing " +
                      std::to_string(k + 1) + " of " + std::to_string(order.size()));
      auto& r = retimed.at(order[k]);
      const auto timing = r.runner->time(on_device, result.shape, options.timer);
      r.samples.insert(r.samples.end(), timing.samples_ns.begin(), timing.samples_ns.end());
      r.durations.warmup_ms += timing.warmup_ms;
      r.durations.timing_ms += timing.timing_ms;
    }
    // Only a pass that completed changes the results, all of them at once.
    std::vector<Outcome> confirmed;
    for (std::size_t i : timed) {
      auto& r = retimed.at(i);
      Outcome o = result.outcomes[i];
      o.timing = vk::compute_stats(r.samples);
      o.gbps = metrics.bytes / o.timing.median;
      o.gflops = metrics.flops / o.timing.median;
      o.confirmed = true;
      o.confirm_durations = r.durations;
      confirmed.push_back(std::move(o));
    }
    if (store_) {
      store_->transaction([&] {
        for (std::size_t j = 0; j < timed.size(); ++j) {
          record(kernel, retimed.at(timed[j]).variant, confirmed[j], shape_text, options.cache_mode,
                 results::Phase::confirm);
        }
      });
    }
    for (std::size_t j = 0; j < timed.size(); ++j) {
      const double searched_ns = result.outcomes[timed[j]].timing.median;
      result.outcomes[timed[j]] = std::move(confirmed[j]);
      const auto& o = result.outcomes[timed[j]];
      if (baseline && timed[j] == *baseline && searched_ns > 0) {
        result.drift = o.timing.median / searched_ns;
        if (*result.drift > 1.25 || *result.drift < 0.8) {
          // As precise as the report's times: three decimals of a microsecond.
          char line[256];
          std::snprintf(line, sizeof line,
                        "warning: the baseline took %.3f us at the start and %.3f us at the end: the device's speed "
                        "changed during the run (clocks, other work on the GPU?); compare results with care",
                        searched_ns / 1e3, o.timing.median / 1e3);
          progress_.message(line);
        }
      }
    }
  } catch (const Error& e) {
    // The search results stand; the confirmation is an improvement, not a
    // requirement.
    progress_.message("confirmation pass skipped: " + std::string(e.what()));
    return;
  }
  result.confirm_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.confirm_rounds = std::max(1, options.confirm_rounds);
  // The winner is chosen from the confirmation's times, among the variants
  // it re-timed (the store's measurements() prefers those rows likewise).
  result.winner = *std::min_element(timed.begin(), timed.end(), [&](std::size_t a, std::size_t b) {
    return result.outcomes[a].timing.median < result.outcomes[b].timing.median;
  });
  // The progress line showed the search's best; say how the re-timing
  // changed it, so that a different final winner is no surprise.
  result.search_best = search_fastest;
  result.search_best_ns = *search_ns[search_fastest];
  progress_.message(confirmation_summary(result, candidates.size()));
}

}  // namespace vktune
