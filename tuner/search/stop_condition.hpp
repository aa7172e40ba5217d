#pragma once
// When a search ends, besides running out of configs: conditions that
// combine (any one met stops the search) and say why they stopped it.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vktune {

struct SearchProgress {
  std::size_t evaluated = 0;          // configs evaluated by the search (the baseline not counted)
  std::optional<double> best_ns;      // fastest valid time so far
  std::size_t since_improvement = 0;  // evaluations since best_ns last improved by over kConvergenceGain
  std::chrono::steady_clock::time_point now;
};

// The gain that counts as an improvement for convergence: 1%, above the
// run-to-run spread of a timed median (docs/TIMING_AND_NUMERICS.md).
inline constexpr double kConvergenceGain = 0.01;

class StopCondition {
 public:
  virtual ~StopCondition() = default;
  // Why the search must stop before its next evaluation, or nothing.
  virtual std::optional<std::string> reason(const SearchProgress& progress) const = 0;
};

// The reason stop_at gives: a run that shares --time among shapes tells
// from it that a shape's share ran out.
inline constexpr const char* kDeadlineReason = "time is up";

// At most `variants` evaluations.
std::unique_ptr<StopCondition> stop_after_variants(std::size_t variants);
// No evaluation starts after `deadline`.
std::unique_ptr<StopCondition> stop_at(std::chrono::steady_clock::time_point deadline);
// Stop once the best time is within `within` (0.03 = 3%) of `target_ns`.
std::unique_ptr<StopCondition> stop_at_target(double target_ns, double within);
// Stop after `evaluations` in a row without a faster variant.
std::unique_ptr<StopCondition> stop_on_convergence(std::size_t evaluations);

// Stop whenever `ask` gives a reason (e.g. the user interrupted the run).
std::unique_ptr<StopCondition> stop_when(std::function<std::optional<std::string>()> ask);

// Stops when any of its conditions does; with none, never.
class AnyStopCondition final : public StopCondition {
 public:
  void add(std::unique_ptr<StopCondition> condition) { conditions_.push_back(std::move(condition)); }
  bool empty() const { return conditions_.empty(); }
  std::optional<std::string> reason(const SearchProgress& progress) const override;

 private:
  std::vector<std::unique_ptr<StopCondition>> conditions_;
};

}  // namespace vktune
