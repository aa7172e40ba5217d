// rmsnorm and rmsnorm_mul: RMS norm over rows of n floats,
// y = x / sqrt(mean(x^2) + 1e-5), and for rmsnorm_mul times a weight w[n]
// shared by all rows (the fused form every Llama-style layer uses). One
// template, templates/rmsnorm.comp; the weight is part of the kernel's
// meaning (FUSED_WEIGHT), not a tuning parameter. eps is fixed at 1e-5
// (Llama 2 and 3, Mistral).
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr double kEps = 1e-5;

class RmsNorm final : public rowops::RowKernel {
 public:
  explicit RmsNorm(bool weight) : weight_(weight) {}

  std::string name() const override { return weight_ ? "rmsnorm_mul" : "rmsnorm"; }

  std::string description() const override {
    return weight_ ? "RMS norm over rows times a weight: y = x / sqrt(mean(x^2) + 1e-5) * w, w[n] shared by all rows"
                   : "RMS norm over rows: y = x / sqrt(mean(x^2) + 1e-5)";
  }

  std::vector<Shape> default_shapes() const override { return {{1, 4096}, {512, 4096}}; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    const auto x = rowops::random_values(rows * n, seed, -1.0f, 1.0f, inputs.kind);
    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(rowops::input_buffer("x", x));
    if (weight_) {
      const auto w = rowops::random_values(n, seed ^ 0x5bd1e995u, 0.5f, 1.5f, inputs.kind);
      problem.buffers.push_back(rowops::input_buffer("w", w));
      problem.expected = ref::rmsnorm(x, n, kEps, w);
    } else {
      problem.expected = ref::rmsnorm(x, n, kEps);
    }
    problem.buffers.push_back(rowops::output_buffer("y", rows * n));
    problem.output_index = problem.buffers.size() - 1;
    return problem;
  }

  // fp32 sum of n squares (per lane, then a tree or subgroup sum: error
  // about eps*log2(n) relative), inversesqrt (2 ulp) and one or two
  // products per element: 1e-6 typical; a wrong element or scale is > 1e-3.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  // Reads x (and w once), writes y; a square-add and one or two products per element.
  Metrics metrics(const Shape& shape) const override {
    const double rows = shape.at(0), n = shape.at(1);
    return Metrics{rows * n * 8 + (weight_ ? n * 4 : 0), rows * n * (weight_ ? 4 : 3)};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t rows = shape.at(0), n = shape.at(1);
    return rowops::floats_bytes(2 * rows * n + (weight_ ? n : 0));
  }

 protected:
  std::string template_file() const override { return "rmsnorm.comp"; }
  rowops::Defines semantic_defines() const override {
    return {{"FUSED_WEIGHT", weight_ ? "1" : "0"}, {"EPS", "1e-5"}};
  }
  std::vector<Binding> binding_list() const override {
    std::vector<Binding> list{{"x", BindingRole::input, size_rule(4, {0, 1})}};
    if (weight_) list.push_back({"w", BindingRole::weights, size_rule(4, {1})});
    list.push_back({"y", BindingRole::output, size_rule(4, {0, 1})});
    return list;
  }

 private:
  bool weight_;
};

const KernelRegistration plain([] { return std::make_unique<RmsNorm>(false); });
const KernelRegistration fused([] { return std::make_unique<RmsNorm>(true); });

}  // namespace
}  // namespace vktune::kernels
