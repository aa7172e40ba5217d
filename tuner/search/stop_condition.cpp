#include "tuner/search/stop_condition.hpp"

#include <cstdio>

namespace vktune {

namespace {

std::string format_us(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f us", ns / 1e3);
  return text;
}

class VariantBudget final : public StopCondition {
 public:
  explicit VariantBudget(std::size_t variants) : variants_(variants) {}
  std::optional<std::string> reason(const SearchProgress& p) const override {
    if (p.evaluated < variants_) return std::nullopt;
    return "budget of " + std::to_string(variants_) + " variants spent";
  }

 private:
  std::size_t variants_;
};

class Deadline final : public StopCondition {
 public:
  explicit Deadline(std::chrono::steady_clock::time_point deadline) : deadline_(deadline) {}
  std::optional<std::string> reason(const SearchProgress& p) const override {
    if (p.now < deadline_) return std::nullopt;
    return std::string(kDeadlineReason);
  }

 private:
  std::chrono::steady_clock::time_point deadline_;
};

class Target final : public StopCondition {
 public:
  Target(double target_ns, double within) : target_ns_(target_ns), within_(within) {}
  std::optional<std::string> reason(const SearchProgress& p) const override {
    if (!p.best_ns || *p.best_ns > target_ns_ * (1 + within_)) return std::nullopt;
    return "reached " + format_us(*p.best_ns) + ", within " + std::to_string(static_cast<int>(within_ * 100 + 0.5)) +
           "% of the target " + format_us(target_ns_);
  }

 private:
  double target_ns_, within_;
};

class Convergence final : public StopCondition {
 public:
  explicit Convergence(std::size_t evaluations) : evaluations_(evaluations) {}
  std::optional<std::string> reason(const SearchProgress& p) const override {
    if (!p.best_ns || p.since_improvement < evaluations_) return std::nullopt;
    return "no variant over " + std::to_string(static_cast<int>(kConvergenceGain * 100 + 0.5)) +
           "% faster in the last " + std::to_string(evaluations_);
  }

 private:
  std::size_t evaluations_;
};

}  // namespace

std::unique_ptr<StopCondition> stop_after_variants(std::size_t variants) {
  return std::make_unique<VariantBudget>(variants);
}
std::unique_ptr<StopCondition> stop_at(std::chrono::steady_clock::time_point deadline) {
  return std::make_unique<Deadline>(deadline);
}
std::unique_ptr<StopCondition> stop_at_target(double target_ns, double within) {
  return std::make_unique<Target>(target_ns, within);
}
std::unique_ptr<StopCondition> stop_on_convergence(std::size_t evaluations) {
  return std::make_unique<Convergence>(evaluations);
}

namespace {
class WhenAsked final : public StopCondition {
 public:
  explicit WhenAsked(std::function<std::optional<std::string>()> ask) : ask_(std::move(ask)) {}
  std::optional<std::string> reason(const SearchProgress&) const override { return ask_(); }

 private:
  std::function<std::optional<std::string>()> ask_;
};
}  // namespace

std::unique_ptr<StopCondition> stop_when(std::function<std::optional<std::string>()> ask) {
  return std::make_unique<WhenAsked>(std::move(ask));
}

std::optional<std::string> AnyStopCondition::reason(const SearchProgress& progress) const {
  for (const auto& c : conditions_)
    if (auto why = c->reason(progress)) return why;
  return std::nullopt;
}

}  // namespace vktune
