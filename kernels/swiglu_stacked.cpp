// swiglu_stacked: SwiGLU of a stacked gate-and-up product's output, rows ×
// n: row r of gu holds gate's n values, then up's (the output of one
// product of the two weight matrices stacked, as a prefill runs them),
// y[r][i] = silu(gu[r][i]) * gu[r][n + i]. The side-by-side layout is the
// one the decode kernels matmul_*_swiglu read. Template templates/swiglu.comp
// with STACKED=1.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/legality.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class SwigluStacked final : public rowops::ElementwiseKernel {
 public:
  std::string name() const override { return "swiglu_stacked"; }
  std::string description() const override {
    return "SwiGLU of gate and up side by side: y[r][i] = silu(gu[r][i]) * gu[r][n + i] (rows of 2n: gate, then up), "
           "silu(v) = v / (1 + exp(-v))";
  }

  std::vector<Space> build_spaces() const override {
    auto spaces = ElementwiseKernel::build_spaces();
    spaces[0].bindings = {{"gu", BindingRole::input, size_rule(8, {0, 1})},
                          {"y", BindingRole::output, size_rule(4, {0, 1})}};
    return spaces;
  }

  // A vector of VEC floats must lie in one row's gate (and its partner in
  // the row's up): the flat tail the other elementwise kernels pad is
  // never taken here.
  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    if (auto problem = ElementwiseKernel::constraint_violation(config, shape, device); !problem.empty()) return problem;
    if (shape.at(1) % config.at("VEC") != 0) {
      return legality::kDivides("VEC=" + std::to_string(config.at("VEC")) + " does not divide n " +
                                std::to_string(shape.at(1)) + ": a vector would straddle gate and up");
    }
    return {};
  }

  Config baseline(const Shape& shape) const override {
    auto config = ElementwiseKernel::baseline(shape);
    if (shape.at(1) % config.at("VEC") != 0) config["VEC"] = 1;
    return config;
  }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    // Gate as swiglu's a, up as its b: the same ranges, row by row.
    const auto gate = rowops::random_values(rows * n, inputs.seed, -6.0f, 6.0f, inputs.kind);
    const auto up = rowops::random_values(rows * n, inputs.seed ^ 0x5bd1e995u, -2.0f, 2.0f, inputs.kind);
    std::vector<float> gu(2 * rows * n);
    for (std::size_t r = 0; r < rows; ++r) {
      std::copy_n(gate.begin() + r * n, n, gu.begin() + 2 * r * n);
      std::copy_n(up.begin() + r * n, n, gu.begin() + (2 * r + 1) * n);
    }
    return rowops::problem_of(shape, {rowops::input_buffer("gu", gu), rowops::output_buffer("y", rows * n)},
                              ref::swiglu(gate, up));
  }

 protected:
  std::string template_file() const override { return "swiglu.comp"; }
  rowops::Defines semantic_defines() const override { return {{"STACKED", "1"}}; }
  std::uint32_t inputs() const override { return 2; }
  double flops_per_element() const override { return 5; }
};

const KernelRegistration swiglu_stacked_registration([] { return std::make_unique<SwigluStacked>(); });

}  // namespace
}  // namespace vktune::kernels
