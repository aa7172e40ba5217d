// rmsnorm, rmsnorm_mul and add_rmsnorm_mul: RMS norm over rows of n floats,
// y = x / sqrt(mean(x^2) + 1e-5), for rmsnorm_mul times a weight w[n] shared
// by all rows (the fused form every Llama-style layer uses), and for
// add_rmsnorm_mul of the sum of two rows, s = a + b, which it writes as well
// (the residual add before a layer's norm: one dispatch, where an add and a
// norm take two with a barrier between). One template,
// templates/rmsnorm.comp; the weight and the add are part of the kernel's
// meaning (FUSED_WEIGHT, ADD_RESIDUAL), not tuning parameters. eps is
// kernels/rms_norm_eps.hpp's (the EPS define keeps its text, "1e-5", which
// every stored variant's hash covers).
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class RmsNorm final : public rowops::RowKernel {
 public:
  // add: the row is a + b, written out as s (implies the weight).
  RmsNorm(bool weight, bool add) : weight_(weight || add), add_(add) {}

  std::string name() const override { return add_ ? "add_rmsnorm_mul" : weight_ ? "rmsnorm_mul" : "rmsnorm"; }

  std::string description() const override {
    if (add_) {
      return "residual add and RMS norm times a weight: s = a + b, y = s / sqrt(mean(s^2) + 1e-5) * w; writes s "
             "and y";
    }
    return weight_ ? "RMS norm over rows times a weight: y = x / sqrt(mean(x^2) + 1e-5) * w, w[n] shared by all rows"
                   : "RMS norm over rows: y = x / sqrt(mean(x^2) + 1e-5)";
  }

  std::vector<Shape> default_shapes() const override { return {{1, 4096}, {512, 4096}}; }

  // With the add, y is the first output and s the second (expected: y's
  // values, then s's); s is the fp32 sum, the reference normalises it.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    auto x = rowops::random_values(rows * n, seed, -1.0f, 1.0f, inputs.kind);
    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(rowops::input_buffer(add_ ? "a" : "x", x));
    if (add_) {
      const auto b = rowops::random_values(rows * n, seed ^ 0x9e3779b97f4a7c15ull, -1.0f, 1.0f, inputs.kind);
      problem.buffers.push_back(rowops::input_buffer("b", b));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] += b[i];
    }
    if (weight_) {
      const auto w = rowops::random_values(n, seed ^ 0x5bd1e995u, 0.5f, 1.5f, inputs.kind);
      problem.buffers.push_back(rowops::input_buffer("w", w));
      problem.expected = ref::rmsnorm(x, n, kRmsNormEps, w);
    } else {
      problem.expected = ref::rmsnorm(x, n, kRmsNormEps);
    }
    if (add_) {
      problem.buffers.push_back(rowops::output_buffer("s", rows * n));
      problem.more_outputs = {problem.buffers.size() - 1};
      problem.expected.insert(problem.expected.end(), x.begin(), x.end());
    }
    problem.buffers.push_back(rowops::output_buffer("y", rows * n));
    problem.output_index = problem.buffers.size() - 1;
    return problem;
  }

  // fp32 sum of n squares (per lane, then a tree or subgroup sum: error
  // about eps*log2(n) relative), inversesqrt (2 ulp) and one or two
  // products per element: 1e-6 typical; a wrong element or scale is > 1e-3.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  // Reads x (or a and b) and w once, writes y (and s); a square-add and one
  // or two products per element, and the add.
  Metrics metrics(const Shape& shape) const override {
    const double rows = shape.at(0), n = shape.at(1);
    return Metrics{rows * n * (add_ ? 16 : 8) + (weight_ ? n * 4 : 0), rows * n * ((weight_ ? 4 : 3) + (add_ ? 1 : 0))};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t rows = shape.at(0), n = shape.at(1);
    return rowops::floats_bytes((add_ ? 4 : 2) * rows * n + (weight_ ? n : 0));
  }

 protected:
  std::string template_file() const override { return "rmsnorm.comp"; }
  rowops::Defines semantic_defines() const override {
    return {{"FUSED_WEIGHT", weight_ ? "1" : "0"}, {"ADD_RESIDUAL", add_ ? "1" : "0"}, {"EPS", "1e-5"}};
  }
  std::vector<Binding> binding_list() const override {
    const auto row = size_rule(4, {0, 1});
    std::vector<Binding> list{{add_ ? "a" : "x", BindingRole::input, row}};
    if (add_) list.push_back({"b", BindingRole::input, row});
    if (weight_) list.push_back({"w", BindingRole::weights, size_rule(4, {1})});
    if (add_) list.push_back({"s", BindingRole::output, row});
    list.push_back({"y", BindingRole::output, row});
    return list;
  }

 private:
  bool weight_, add_;
};

const KernelRegistration rmsnorm_plain([] { return std::make_unique<RmsNorm>(false, false); });
const KernelRegistration rmsnorm_fused([] { return std::make_unique<RmsNorm>(true, false); });
const KernelRegistration rmsnorm_residual([] { return std::make_unique<RmsNorm>(true, true); });

}  // namespace
}  // namespace vktune::kernels
