// softmax and softmax_causal, one template (templates/softmax.comp):
//   softmax          rows × n: y = softmax(x) per row, exactly ref::softmax
//                    (vocabulary logits, attention scores of one query).
//   softmax_causal   heads × queries × keys attention scores of a prefill
//                    step: query q (0-based) sits at position
//                    keys - queries + q (the cache holds keys - queries
//                    earlier tokens) and sees keys 0..keys-queries+q; its row
//                    is softmax(scale * x) over those and 0 for the masked
//                    keys. scale is a one-float input buffer (binding 1), so
//                    one SPIR-V serves every head size (1/sqrt(head_dim)).
// The causal mask and the scale are the kernel's meaning (CAUSAL), not
// tuning parameters.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr float kScale = 0.08838834764831845f;  // 1/sqrt(128), the head size of Llama 3 8B

class Softmax final : public rowops::RowKernel {
 public:
  std::string name() const override { return "softmax"; }

  std::string description() const override {
    return "softmax over rows of n floats, max-subtracted: y = exp(x - max) / sum exp(x - max)";
  }

  // 32 heads × 4096 keys of one decode query; 512 × 32000 vocabulary logits.
  std::vector<Shape> default_shapes() const override { return {{32, 4096}, {512, 32000}}; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    const auto x = rowops::random_values(rows * n, seed, -8.0f, 8.0f, inputs.kind);
    return rowops::problem_of(shape, {rowops::input_buffer("x", x), rowops::output_buffer("y", rows * n)},
                              ref::softmax(x, n));
  }

  // exp in fp32 (the driver's, a few ulps for arguments in [-16, 0]), an
  // fp32 sum over the row and a reciprocal: 1e-6 typical.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  Metrics metrics(const Shape& shape) const override {
    const double rows = shape.at(0), n = shape.at(1);
    return Metrics{rows * n * 8, rows * n * 5};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    return rowops::floats_bytes(2ull * shape.at(0) * shape.at(1));
  }

 protected:
  std::string template_file() const override { return "softmax.comp"; }
  rowops::Defines semantic_defines() const override { return {{"CAUSAL", "0"}}; }
  std::vector<Binding> binding_list() const override {
    return {{"x", BindingRole::input, size_rule(4, {0, 1})}, {"y", BindingRole::output, size_rule(4, {0, 1})}};
  }
};

class SoftmaxCausal final : public rowops::RowKernel {
 public:
  std::string name() const override { return "softmax_causal"; }

  std::string description() const override {
    return "causal attention softmax: heads × queries rows of keys scores; query q sees keys 0..keys-queries+q, "
           "y = softmax(scale * x) over those and 0 beyond; scale is a one-float buffer";
  }

  std::vector<std::string> shape_dims() const override { return {"heads", "queries", "keys"}; }

  void validate_shape(const Shape& shape) const override {
    RowKernel::validate_shape(shape);
    if (shape[1] > shape[2]) {
      throw Error(ErrorKind::usage, "softmax_causal: queries=" + std::to_string(shape[1]) + " exceeds keys=" +
                                        std::to_string(shape[2]) + " (the queries are the last keys)");
    }
  }

  // Prefill of 512 tokens from an empty cache, and 64 tokens after 4032.
  std::vector<Shape> default_shapes() const override { return {{32, 512, 512}, {32, 64, 4096}}; }
  std::vector<Shape> check_shapes() const override { return {{1, 1, 37}, {2, 3, 1000}, {1, 7, 4097}}; }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t heads = shape[0], queries = shape[1], keys = shape[2];
    const auto x = rowops::random_values(heads * queries * keys, seed, -20.0f, 20.0f, inputs.kind);
    Problem problem;
    problem.shape = shape;
    problem.buffers = {rowops::input_buffer("x", x), rowops::input_buffer("scale", {kScale}),
                       rowops::output_buffer("y", heads * queries * keys)};
    problem.output_index = 2;
    problem.expected.assign(heads * queries * keys, 0.0);
    std::vector<float> row;
    for (std::size_t r = 0; r < heads * queries; ++r) {
      const std::size_t visible = keys - queries + r % queries + 1;
      // The template scales in fp32: one correctly rounded product, as here.
      row.assign(x.begin() + r * keys, x.begin() + r * keys + visible);
      for (auto& v : row) v *= kScale;
      const auto y = ref::softmax(row, visible);
      std::copy(y.begin(), y.end(), problem.expected.begin() + r * keys);
    }
    return problem;
  }

  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  // Reads the visible scores, writes every output.
  Metrics metrics(const Shape& shape) const override {
    const double heads = shape.at(0), queries = shape.at(1), keys = shape.at(2);
    const double visible = queries * (keys - queries) + queries * (queries + 1) / 2;
    return Metrics{heads * (visible + queries * keys) * 4 + 4, heads * visible * 5};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    return rowops::floats_bytes(2ull * shape.at(0) * shape.at(1) * shape.at(2) + 1);
  }

 protected:
  std::string template_file() const override { return "softmax.comp"; }
  rowops::Defines semantic_defines() const override { return {{"CAUSAL", "1"}}; }
  std::vector<Binding> binding_list() const override {
    return {{"x", BindingRole::input, size_rule(4, {0, 1, 2})},
            {"scale", BindingRole::input, size_rule(4, {})},
            {"y", BindingRole::output, size_rule(4, {0, 1, 2})}};
  }
  int inner_dim() const override { return 1; }
  int outer_dim() const override { return 0; }
  std::uint32_t inner_rows(const Shape& shape) const override { return shape.at(1); }
  std::uint32_t row_length(const Shape& shape) const override { return shape.at(2); }
};

const KernelRegistration softmax_plain([] { return std::make_unique<Softmax>(); });
const KernelRegistration softmax_causal([] { return std::make_unique<SoftmaxCausal>(); });

}  // namespace
}  // namespace vktune::kernels
