#pragma once
// A kernel as enumeration sees it without its prefix checker
// (kernels/prefix_checker.hpp): every config checked one by one against the
// pruning rules and constraint_violation. What a prefix checker must agree
// with.
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels {

class ConfigByConfig final : public Kernel {
 public:
  explicit ConfigByConfig(const Kernel& k) : k_(k) {}
  std::string name() const override { return k_.name(); }
  std::string description() const override { return k_.description(); }
  std::vector<std::string> shape_dims() const override { return k_.shape_dims(); }
  void validate_shape(const Shape& s) const override { k_.validate_shape(s); }
  std::vector<Shape> default_shapes() const override { return k_.default_shapes(); }
  std::vector<Shape> check_shapes() const override { return k_.check_shapes(); }
  Config baseline(const Shape& s) const override { return k_.baseline(s); }
  Violation constraint_violation(const Config& c, const Shape& s, const vk::DeviceInfo& d) const override {
    return k_.constraint_violation(c, s, d);
  }
  ShaderPlan plan(const Config& c, const Shape& s) const override { return k_.plan(c, s); }
  Problem make_problem(const Shape& s, const Inputs& i) const override { return k_.make_problem(s, i); }
  Tolerance tolerance(const Shape& s) const override { return k_.tolerance(s); }
  Metrics metrics(const Shape& s) const override { return k_.metrics(s); }
  std::uint64_t device_bytes(const Shape& s) const override { return k_.device_bytes(s); }

 protected:
  std::vector<Space> build_spaces() const override { return k_.spaces(); }

 private:
  const Kernel& k_;
};

}  // namespace vktune::kernels
