// argmax: per row of n floats, the index of the largest value as ref::argmax
// defines it (the lowest index among equal values, NaNs skipped, an all-NaN
// row gives 0), written as a float: exact, since n < 2^24.
// Template templates/argmax.comp.
#include <cmath>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

class Argmax final : public rowops::RowKernel {
 public:
  std::string name() const override { return "argmax"; }

  std::string description() const override {
    return "argmax over rows of n floats: the lowest index of the largest value (NaNs skipped), as an fp32 value";
  }

  // Greedy sampling over a Llama 3 (128256) and a Llama 2 (32000) vocabulary.
  std::vector<Shape> default_shapes() const override { return {{1, 128256}, {8, 32000}}; }

  // Values in [-1, 1), with the row's maximum 2 repeated: at two random
  // places (row r % 3 == 0), at the first and last element (== 1: the
  // misaligned head and tail of a vector walk), or at the last two (== 2);
  // rows with r % 3 == 2 also hold a NaN before the maximum.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t rows = shape[0], n = shape[1];
    auto x = rowops::random_values(rows * n, seed, -1.0f, 1.0f, inputs.kind);
    std::mt19937_64 rng(seed ^ 0x2545f4914f6cdd1dull);
    Problem problem;
    problem.shape = shape;
    problem.expected.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = x.data() + r * n;
      std::size_t first = 0, second = n - 1;
      if (r % 3 == 0) {
        first = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
        second = first + 1 < n ? std::uniform_int_distribution<std::size_t>(first + 1, n - 1)(rng) : first;
      } else if (r % 3 == 2 && n >= 2) {
        first = n - 2;
        if (first > 0) row[first / 2] = std::nanf("");
      }
      row[first] = row[second] = 2.0f;
      problem.expected[r] = static_cast<double>(ref::argmax(std::span<const float>(row, n)));
    }
    problem.buffers = {rowops::input_buffer("x", x), rowops::output_buffer("y", rows)};
    problem.output_index = 1;
    return problem;
  }

  // Indices are exact: any difference is a wrong answer.
  Tolerance tolerance(const Shape&) const override { return Tolerance{0.0, 0.0}; }

  Metrics metrics(const Shape& shape) const override {
    const double rows = shape.at(0), n = shape.at(1);
    return Metrics{rows * n * 4 + rows * 4, rows * n};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    return rowops::floats_bytes(std::uint64_t{shape.at(0)} * shape.at(1) + shape.at(0));
  }

 protected:
  std::string template_file() const override { return "argmax.comp"; }
  std::vector<Binding> binding_list() const override {
    return {{"x", BindingRole::input, size_rule(4, {0, 1})}, {"y", BindingRole::output, size_rule(4, {0})}};
  }
  bool uses_index_reduction() const override { return true; }
};

const KernelRegistration argmax_registration([] { return std::make_unique<Argmax>(); });

}  // namespace
}  // namespace vktune::kernels
