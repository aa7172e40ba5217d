// add: the residual connection, elementwise over rows × n: y = a + b.
// Template templates/add.comp.
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class Add final : public rowops::ElementwiseKernel {
 public:
  std::string name() const override { return "add"; }
  std::string description() const override { return "residual add, elementwise: y = a + b"; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t total = std::size_t{shape[0]} * shape[1];
    const auto a = rowops::random_values(total, seed, -1.0f, 1.0f, inputs.kind);
    const auto b = rowops::random_values(total, seed ^ 0x5bd1e995u, -1.0f, 1.0f, inputs.kind);
    return rowops::problem_of(
        shape, {rowops::input_buffer("a", a), rowops::input_buffer("b", b), rowops::output_buffer("y", total)},
        ref::add(a, b));
  }

  // One fp32 rounding per element (2^-24 relative): anything more is wrong.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-6, 1e-6}; }

 protected:
  std::string template_file() const override { return "add.comp"; }
  std::uint32_t inputs() const override { return 2; }
  double flops_per_element() const override { return 1; }
};

const KernelRegistration add_registration([] { return std::make_unique<Add>(); });

}  // namespace
}  // namespace vktune::kernels
