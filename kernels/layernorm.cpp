// layernorm: over rows of n floats, mean = sum(x)/n, var = sum((x - mean)^2)/n,
// y = (x - mean) / sqrt(var + 1e-5) * w + b, with w[n] and b[n] shared by all
// rows (as in GPT-2, BERT, Falcon). Template templates/layernorm.comp.
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr double kEps = 1e-5;

class LayerNorm final : public rowops::RowKernel {
 public:
  std::string name() const override { return "layernorm"; }

  std::string description() const override {
    return "layer norm over rows: y = (x - mean) / sqrt(var + 1e-5) * w + b, w[n] and b[n] shared by all rows";
  }

  std::vector<Shape> default_shapes() const override { return {{1, 4096}, {512, 4096}}; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    // An offset mean, so that centring matters.
    const auto x = rowops::random_values(rows * n, seed, -0.5f, 1.5f, inputs.kind);
    const auto w = rowops::random_values(n, seed ^ 0x5bd1e995u, 0.5f, 1.5f, inputs.kind);
    const auto b = rowops::random_values(n, seed ^ 0x27d4eb2fu, -0.5f, 0.5f, inputs.kind);
    return rowops::problem_of(shape,
                              {rowops::input_buffer("x", x), rowops::input_buffer("w", w), rowops::input_buffer("b", b),
                               rowops::output_buffer("y", rows * n)},
                              ref::layernorm(x, n, kEps, w, b));
  }

  // Two fp32 sums over the row (mean, then centred squares, as the
  // reference), inversesqrt and a multiply-add per element: 1e-6 typical.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  Metrics metrics(const Shape& shape) const override {
    const double rows = shape.at(0), n = shape.at(1);
    return Metrics{rows * n * 8 + n * 8, rows * n * 7};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t rows = shape.at(0), n = shape.at(1);
    return rowops::floats_bytes(2 * rows * n + 2 * n);
  }

 protected:
  std::string template_file() const override { return "layernorm.comp"; }
  rowops::Defines semantic_defines() const override { return {{"EPS", "1e-5"}}; }
  std::vector<Binding> binding_list() const override {
    return {{"x", BindingRole::input, size_rule(4, {0, 1})},
            {"w", BindingRole::weights, size_rule(4, {1})},
            {"b", BindingRole::weights, size_rule(4, {1})},
            {"y", BindingRole::output, size_rule(4, {0, 1})}};
  }
};

const KernelRegistration layernorm_registration([] { return std::make_unique<LayerNorm>(); });

}  // namespace
}  // namespace vktune::kernels
