// gelu_tanh and gelu_erf: GELU elementwise over rows × n, in its tanh form
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (GPT-2, Gemma) and its
// exact erf form 0.5 x (1 + erf(x / sqrt(2))) (BERT, Falcon). One template,
// templates/gelu.comp; the form is the kernel's meaning (FORM), not a tuning
// parameter. GLSL has no erf: gelu_erf uses Abramowitz and Stegun 7.1.26
// (|error| <= 1.5e-7), inside the tolerance below.
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class Gelu final : public rowops::ElementwiseKernel {
 public:
  explicit Gelu(bool erf_form) : erf_(erf_form) {}

  std::string name() const override { return erf_ ? "gelu_erf" : "gelu_tanh"; }
  std::string description() const override {
    return erf_ ? "GELU, erf form, elementwise: y = 0.5 x (1 + erf(x / sqrt(2)))"
                : "GELU, tanh form, elementwise: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))";
  }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t total = std::size_t{shape[0]} * shape[1];
    const auto x = rowops::random_values(total, seed, -5.0f, 5.0f, inputs.kind);
    return rowops::problem_of(shape, {rowops::input_buffer("x", x), rowops::output_buffer("y", total)},
                              erf_ ? ref::gelu_erf(x) : ref::gelu_tanh(x));
  }

 protected:
  std::string template_file() const override { return "gelu.comp"; }
  rowops::Defines semantic_defines() const override { return {{"FORM", erf_ ? "1" : "0"}}; }
  std::uint32_t inputs() const override { return 1; }
  double flops_per_element() const override { return erf_ ? 16 : 9; }

 private:
  bool erf_;
};

const KernelRegistration gelu_tanh_form([] { return std::make_unique<Gelu>(false); });
const KernelRegistration gelu_erf_form([] { return std::make_unique<Gelu>(true); });

}  // namespace
}  // namespace vktune::kernels
