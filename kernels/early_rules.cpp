#include "kernels/early_rules.hpp"

#include <algorithm>

namespace vktune::kernels {

namespace {

class EarlyRulesChecker final : public PrefixChecker {
 public:
  EarlyRulesChecker(const Kernel& kernel, const Path& path, const Shape& shape, const vk::DeviceInfo& device,
                    const std::vector<const PruningRule*>& pruning, std::vector<EarlyRule> rules)
      : kernel_(kernel), shape_(shape), device_(device), pruning_(pruning) {
    const auto& space = kernel.spaces().at(kernel.space_index(shape));
    // The configs enumeration builds: the pinned values and the shape's
    // (tuner/space.cpp), then the path's parameters.
    config_ = path.pinned;
    if (space.shape_values) {
      for (const auto& [name, value] : space.shape_values(shape)) config_[name] = value;
    }
    const std::size_t n = path.parameters.size();
    for (const auto& p : path.parameters) slots_.push_back(config_.insert_or_assign(p.name, p.values.front()).first);
    by_depth_.resize(n + 1);
    for (auto& rule : rules) {
      std::size_t depth = 0;
      bool carried = true;
      for (const auto& read : rule.reads) {
        const auto at = std::find_if(path.parameters.begin(), path.parameters.end(),
                                     [&](const Parameter& p) { return p.name == read; });
        if (at != path.parameters.end()) {
          depth = std::max(depth, static_cast<std::size_t>(at - path.parameters.begin()) + 1);
        } else if (config_.count(read) == 0) {
          carried = false;
        }
      }
      // At the full depth constraint_violation decides it anyway.
      if (carried && depth < n) by_depth_[depth].push_back(std::move(rule.violation));
    }
  }

  Verdict check(std::size_t depth, const int* values) override {
    for (std::size_t i = 0; i < depth; ++i) slots_[i]->second = values[i];
    if (depth + 1 < by_depth_.size()) {
      for (const auto& rule : by_depth_[depth]) {
        if (auto why = rule(config_); !why.empty()) return {Outcome::illegal, std::move(why)};
      }
      return {};
    }
    for (const auto* rule : pruning_) {
      if (rule->prunes(config_, shape_)) return {Outcome::pruned, Violation{rule->name, ""}};
    }
    if (auto why = kernel_.constraint_violation(config_, shape_, device_); !why.empty()) {
      return {Outcome::illegal, std::move(why)};
    }
    return {};
  }

 private:
  const Kernel& kernel_;
  const Shape shape_;
  const vk::DeviceInfo& device_;
  const std::vector<const PruningRule*> pruning_;
  Config config_;
  std::vector<Config::iterator> slots_;
  std::vector<std::vector<std::function<Violation(const Config&)>>> by_depth_;
};

}  // namespace

std::unique_ptr<PrefixChecker> make_early_rules_checker(const Kernel& kernel, const Path& path, const Shape& shape,
                                                        const vk::DeviceInfo& device,
                                                        const std::vector<const PruningRule*>& pruning,
                                                        std::vector<EarlyRule> rules) {
  return std::make_unique<EarlyRulesChecker>(kernel, path, shape, device, pruning, std::move(rules));
}

}  // namespace vktune::kernels
