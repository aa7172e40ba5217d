#pragma once
// The confirmation pass's plan: which variants it re-times and in what order.
// The search times each variant once, minutes apart from the others, while
// the device's speed can drift (clocks, thermal limits, other tenants); the
// finalists are timed again right beside the baseline so that the winner and
// its speedup do not depend on when each happened to be measured.
#include <cstddef>
#include <optional>
#include <vector>

namespace vktune {

// Variants whose search time is within this fraction of the fastest are too
// close to call from one measurement each: the confirmation re-times them.
inline constexpr double kConfirmWithin = 0.03;
// ... and at least this many of the fastest, however far apart,
inline constexpr std::size_t kConfirmAtLeast = 3;
// ... and at most this many, so that a flat landscape (hundreds of variants
// within 3%) cannot make the confirmation cost more than the search.
inline constexpr std::size_t kConfirmAtMost = 32;

struct ConfirmRule {
  double within = kConfirmWithin;
  std::size_t at_least = kConfirmAtLeast;
  std::size_t at_most = kConfirmAtMost;
};

// The indices (into search_ns, one entry per outcome, empty for a failure)
// of the variants to re-time, fastest first: every one within rule.within of
// the fastest, at least the rule.at_least fastest, at most rule.at_most. The
// baseline counts towards the fastest but is left out of the result, because
// the pass times it beside every candidate anyway.
std::vector<std::size_t> confirmation_candidates(const std::vector<std::optional<double>>& search_ns,
                                                 const ConfirmRule& rule, std::optional<std::size_t> baseline);

// The order of the timings, as outcome indices: per round, the baseline
// before each candidate (b c0 b c1 ... b cn), so that a drift in the
// device's speed affects both sides of each comparison alike; without a
// baseline, the candidates in turn. At least one round.
std::vector<std::size_t> confirmation_order(const std::vector<std::size_t>& candidates,
                                            std::optional<std::size_t> baseline, int rounds);

}  // namespace vktune
