#pragma once
// A kernel declared by a spec file (spec_file.hpp, docs/SPEC_FORMAT.md),
// served through the same Kernel interface as the kernels written in C++:
// the tuner, check, list, the store and the exporters see no difference.
//
// Its one space holds every sub-space of the spec as a path (selected by the
// PATH parameter when there are several); parameters arrive as #defines in
// the order the spec lists them, then the sub-space's fixed defines.
#include <memory>
#include <mutex>

#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"
#include "kernels/spec/spec_definition.hpp"

namespace vktune::kernels::spec {

// A stage's local size, workgroup divisor, shared memory or subgroup size
// that is not a whole number in range for a config.
inline constexpr RuleId kStageValue{"spec.stage_value"};

// A legality rule of the spec (its reason and its expression's text) that
// evaluated to `value`: no violation unless 0 or NaN, else one whose id is
// the reason (the spec's own name for the rule) and whose detail adds the
// expression.
Violation legality_violation(const std::string& reason, const std::string& expression, double value);

class SpecKernel final : public Kernel {
 public:
  explicit SpecKernel(Definition definition);

  std::string name() const override { return d_.name; }
  std::string description() const override { return d_.description; }
  std::vector<std::string> shape_dims() const override { return d_.dims; }
  void validate_shape(const Shape& shape) const override;
  std::vector<Shape> default_shapes() const override { return d_.default_shapes; }
  std::vector<Shape> check_shapes() const override { return d_.check_shapes; }
  Config baseline(const Shape& shape) const override;
  // A legality rule of the spec that fails is a violation of the rule named
  // by its reason (the spec's own words); kernels/legality.hpp's rules and
  // kStageValue cover the rest.
  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override;
  ShaderPlan plan(const Config& config, const Shape& shape) const override;
  std::vector<ShaderPlan> stages(const Config& config, const Shape& shape) const override;
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override;
  std::optional<DeviceReference> device_reference(const Shape& shape) const override;
  Tolerance tolerance(const Shape& shape) const override;
  Tolerance variant_tolerance(const Config& config, const Shape& shape) const override;
  Metrics metrics(const Shape& shape) const override;
  std::uint64_t device_bytes(const Shape& shape) const override;

  std::unique_ptr<PrefixChecker> prefix_checker(const Path& path, const Shape& shape, const vk::DeviceInfo& device,
                                                const std::vector<const PruningRule*>& pruning) const override;

  const Definition& definition() const { return d_; }

 protected:
  std::vector<Space> build_spaces() const override;

 private:
  friend class SpecPrefixChecker;
  std::size_t path_index(const Config& config) const;
  // dims, then parameters (from `config`), then zeros for the device facts.
  std::vector<double> values_of(const Config& config, const Shape& shape) const;
  // A stage's plan, or "" in `problem` why it cannot be planned; without
  // the defines (text) when only its limits are checked.
  ShaderPlan stage_plan(const Stage& stage, const PathSpec& sub, const Config& config,
                        const std::vector<double>& values, std::string* problem, bool defines = true) const;
  // The push-constant words at `values` (the spec's push_constants).
  std::vector<std::uint32_t> push_words(const std::vector<double>& values) const;
  // validate_shape, remembered for the last shape that passed: enumerations
  // ask for every config of one shape.
  void validate_shape_once(const Shape& shape) const;

  Definition d_;
  std::vector<Binding> bindings_;
  std::vector<PushWord> push_words_;  // the Space's layout (spec_push_constants.hpp)
  std::string push_unfit_;
  std::string uniform_unfit_;  // why a uniform member cannot travel in the contract ("" = every one can)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> uniform_buffers_;  // every stage's ShaderPlan::uniform_buffers
  mutable std::mutex shape_lock_;
  mutable Shape last_valid_shape_;
};

}  // namespace vktune::kernels::spec
