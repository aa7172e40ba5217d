#include "kernels/spec/spec_prefix_checker.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "kernels/kernel_support.hpp"
#include "kernels/spec/spec_image.hpp"
#include "kernels/spec/spec_kernel.hpp"

namespace vktune::kernels::spec {

namespace {

std::shared_ptr<Expression> copy_of(const std::shared_ptr<Expression>& e) {
  return e ? std::make_shared<Expression>(e->clone()) : nullptr;
}

}  // namespace

// Not in an anonymous namespace: SpecKernel names it a friend.
class SpecPrefixChecker final : public PrefixChecker {
 public:
  SpecPrefixChecker(const SpecKernel& kernel, std::size_t sub_index, const Path& path, const Shape& shape,
                    const vk::DeviceInfo& device, const std::vector<const PruningRule*>& pruning);
  Verdict check(std::size_t depth, const int* values) override;

 private:
  enum class Kind { pruning, legality, stage };
  struct Check {
    Kind kind;
    std::string name;                        // pruning: the rule's name; legality: its reason (its id)
    std::unique_ptr<Expression> expression;  // pruning and legality: this thread's copy
    std::size_t stage = 0;
  };

  // The depth at which everything `reads` names is bound.
  std::size_t depth_of(const std::vector<std::size_t>& reads) const;
  Violation stage_violation(std::size_t stage) const;

  const SpecKernel& kernel_;
  const PathSpec& sub_;
  const Shape shape_;
  const vk::DeviceInfo& device_;
  std::vector<std::size_t> slot_of_;        // path parameter -> index in values_
  std::vector<std::size_t> position_of_;    // scope index -> path position + 1, 0 = not a path parameter
  std::vector<double> values_;              // the full scope's layout
  std::vector<Stage> stages_;               // with this thread's copies of their expressions
  std::vector<std::vector<Check>> checks_;  // by depth: pruning, then legality, then stages
  Violation image_violation_;               // the images' (spec_image.hpp): the same for every config
};

SpecPrefixChecker::SpecPrefixChecker(const SpecKernel& kernel, std::size_t sub_index, const Path& path,
                                     const Shape& shape, const vk::DeviceInfo& device,
                                     const std::vector<const PruningRule*>& pruning)
    : kernel_(kernel), sub_(kernel.definition().paths[sub_index]), shape_(shape), device_(device) {
  const auto& d = kernel.definition();
  kernel.validate_shape(shape);
  image_violation_ = image_violation(d, shape, device);
  values_ = kernel.values_of(path.pinned, shape);
  fill_device_facts(device, values_.data() + d.device_offset);
  position_of_.assign(d.full_scope.size(), 0);
  for (std::size_t i = 0; i < path.parameters.size(); ++i) {
    const long slot = d.full_scope.index_of(path.parameters[i].name);
    if (slot < 0) throw Error(ErrorKind::internal, "path parameter " + path.parameters[i].name + " is not in scope");
    slot_of_.push_back(static_cast<std::size_t>(slot));
    position_of_[static_cast<std::size_t>(slot)] = i + 1;
  }
  checks_.resize(path.parameters.size() + 1);
  for (const auto& rule : sub_.pruning) {
    const std::string name = sub_.name + "." + rule.name;
    const bool active =
        std::any_of(pruning.begin(), pruning.end(), [&](const PruningRule* r) { return r->name == name; });
    if (!active) continue;
    checks_[depth_of(rule.expression.reads())].push_back(
        {Kind::pruning, name, std::make_unique<Expression>(rule.expression.clone())});
  }
  for (const auto& rule : sub_.legality) {
    checks_[depth_of(rule.expression.reads())].push_back(
        {Kind::legality, rule.reason, std::make_unique<Expression>(rule.expression.clone())});
  }
  for (std::size_t s = 0; s < sub_.stages.size(); ++s) {
    const auto& stage = sub_.stages[s];
    Stage copy = stage;
    std::vector<std::size_t> reads;
    auto take = [&](std::shared_ptr<Expression>& e) {
      e = copy_of(e);
      if (e) reads.insert(reads.end(), e->reads().begin(), e->reads().end());
    };
    for (auto& e : copy.local_size) take(e);
    // Every expression of the stage: one left out is evaluated at a depth
    // where the parameters it reads are still unset (a fold read 0 there).
    for (auto& axis : copy.workgroups) {
      take(axis.per_workgroup);
      take(axis.fold);
    }
    take(copy.shared_memory_bytes);
    take(copy.subgroup_size);
    take(copy.full_subgroups);
    stages_.push_back(std::move(copy));
    checks_[depth_of(reads)].push_back({Kind::stage, {}, nullptr, s});
  }
  // Pruning before legality before stages at one depth, as config-by-config
  // checking orders them.
  for (auto& at : checks_) {
    std::stable_sort(at.begin(), at.end(), [](const Check& a, const Check& b) { return a.kind < b.kind; });
  }
}

std::size_t SpecPrefixChecker::depth_of(const std::vector<std::size_t>& reads) const {
  std::size_t depth = 0;
  for (const auto r : reads) depth = std::max(depth, position_of_[r]);
  return depth;
}

Violation SpecPrefixChecker::stage_violation(std::size_t s) const {
  std::string unplanned;
  const auto plan = kernel_.stage_plan(stages_[s], sub_, {}, values_, &unplanned, false);
  Violation problem;
  if (!unplanned.empty()) problem = kStageValue(unplanned);
  if (problem.empty()) {
    const auto invocations = std::uint64_t{plan.local_size[0]} * plan.local_size[1] * plan.local_size[2];
    problem = support::subgroup_size_violation(
        static_cast<int>(plan.required_subgroup_size),
        static_cast<std::uint32_t>(std::min<std::uint64_t>(invocations, 1u << 30)), device_);
  }
  if (problem.empty()) {
    problem =
        plan_limits_violation(plan, shape_, static_cast<std::uint32_t>(kernel_.definition().buffers.size()), device_);
  }
  if (problem.empty() || stages_.size() == 1) return problem;
  problem.detail = "stage " + std::to_string(s) + ": " + problem.detail;
  return problem;
}

PrefixChecker::Verdict SpecPrefixChecker::check(std::size_t depth, const int* values) {
  // Decided for every config at once, before any rule, as constraint_violation does.
  if (depth == 0 && !image_violation_.empty()) return {Outcome::illegal, image_violation_};
  for (std::size_t i = 0; i < depth; ++i) values_[slot_of_[i]] = values[i];
  for (const auto& c : checks_.at(depth)) {
    if (c.kind == Kind::stage) {
      if (auto why = stage_violation(c.stage); !why.empty()) return {Outcome::illegal, why};
      continue;
    }
    const double v = c.expression->evaluate(values_.data());
    if (c.kind == Kind::pruning) {
      if (v != 0) return {Outcome::pruned, {c.name, {}}};
      continue;
    }
    if (auto why = legality_violation(c.name, c.expression->text(), v); !why.empty()) return {Outcome::illegal, why};
  }
  return {};
}

std::unique_ptr<PrefixChecker> make_prefix_checker(const SpecKernel& kernel, const Path& path, const Shape& shape,
                                                   const vk::DeviceInfo& device,
                                                   const std::vector<const PruningRule*>& pruning) {
  const auto& paths = kernel.definition().paths;
  std::size_t sub = 0;
  if (paths.size() > 1) {
    const auto it =
        std::find_if(paths.begin(), paths.end(), [&](const auto& s) { return s.name == path.name; });
    if (it == paths.end()) return nullptr;  // not one of this spec's paths: check config by config
    sub = static_cast<std::size_t>(it - paths.begin());
  }
  return std::make_unique<SpecPrefixChecker>(kernel, sub, path, shape, device, pruning);
}

}  // namespace vktune::kernels::spec
