// swiglu: elementwise over rows × n, y = silu(a) * b with
// silu(v) = v / (1 + exp(-v)), the gated FFN activation of Llama-style
// models (a = gate projection, b = up projection). Template
// templates/swiglu.comp.
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class Swiglu final : public rowops::ElementwiseKernel {
 public:
  std::string name() const override { return "swiglu"; }
  std::string description() const override { return "SwiGLU, elementwise: y = silu(a) * b, silu(v) = v / (1 + exp(-v))"; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t total = std::size_t{shape[0]} * shape[1];
    const auto a = rowops::random_values(total, seed, -6.0f, 6.0f, inputs.kind);
    const auto b = rowops::random_values(total, seed ^ 0x5bd1e995u, -2.0f, 2.0f, inputs.kind);
    return rowops::problem_of(
        shape, {rowops::input_buffer("a", a), rowops::input_buffer("b", b), rowops::output_buffer("y", total)},
        ref::swiglu(a, b));
  }

 protected:
  std::string template_file() const override { return "swiglu.comp"; }
  std::uint32_t inputs() const override { return 2; }
  double flops_per_element() const override { return 5; }
};

const KernelRegistration swiglu_registration([] { return std::make_unique<Swiglu>(); });

}  // namespace
}  // namespace vktune::kernels
