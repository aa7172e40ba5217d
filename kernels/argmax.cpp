// argmax: per row of n floats, the index of the largest value as ref::argmax
// defines it (the lowest index among equal values, NaNs skipped, an all-NaN
// row gives 0), written as a float: exact, since n < 2^24.
// Template templates/argmax.comp: a team walks each row, or (SPLIT_STEPS > 0,
// the "split-" paths) a workgroup walks each segment of SPLIT_STEPS steps of
// a row and the last of the row's to finish picks the best of the segments'
// through the scratch buffer, in the same dispatch.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/legality.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

// Its own rule (kernels/legality.hpp has the shared ones).
inline constexpr RuleId kSplitSegments{"argmax.split_segments"};  // a split row has two segments or more

// Segments hold at least this many floats (a team of 64 or more, one step
// at least), which sizes the scratch's (value, index) pairs: rows * n / 64
// pairs at most, plus one for a row's last, partial segment.
constexpr std::uint64_t kMinSegment = 64;

// ROWS counters, then 8 bytes a segment: 4*rows + 8*rows*(n/64 + 1) bytes,
// as one rule over 64: (768*rows + 8*rows*n) / 64.
SizeRule scratch_rule() { return size_rule(768, {0}, kMinSegment) + size_rule(8, {0, 1}, kMinSegment); }

std::uint32_t split_steps(const Config& config) {
  const auto it = config.find("SPLIT_STEPS");
  return it == config.end() ? 0u : static_cast<std::uint32_t>(it->second);
}

// Floats of a row one workgroup takes (SPLIT_STEPS > 0).
std::uint64_t segment_floats(const Config& config) {
  return std::uint64_t{split_steps(config)} * static_cast<std::uint32_t>(config.at("WG_SIZE")) *
         static_cast<std::uint32_t>(config.at("VEC")) * static_cast<std::uint32_t>(config.at("EPT"));
}

class Argmax final : public rowops::RowKernel {
 public:
  std::string name() const override { return "argmax"; }

  std::string description() const override {
    return "argmax over rows of n floats: the lowest index of the largest value (NaNs skipped), as an fp32 value";
  }

  // The row walks of every row kernel with SPLIT_STEPS pinned to 0, and
  // each again as a "split-" path: one row a workgroup (ROWS_PER_WG 1),
  // SPLIT_STEPS 1 to 8.
  std::vector<Space> build_spaces() const override {
    auto spaces = RowKernel::build_spaces();
    Space& space = spaces.front();
    const Parameter split{"SPLIT_STEPS",
                          {0, 1, 2, 4, 8},
                          "0 = a team walks a whole row; k = a workgroup takes each segment of k steps of a row, "
                          "and the last of the row's to finish picks the best of the segments'"};
    const auto at = std::find_if(space.parameters.begin(), space.parameters.end(),
                                 [](const Parameter& p) { return p.name == "SUBGROUP_SIZE"; });
    space.parameters.insert(at, split);
    std::vector<Path> paths;
    for (auto path : space.paths) {
      Path divided = path;
      path.pinned["SPLIT_STEPS"] = 0;
      path.unused_bindings = {"scratch"};
      paths.push_back(path);
      divided.name = "split-" + divided.name;
      std::erase_if(divided.parameters, [](const Parameter& p) { return p.name == "ROWS_PER_WG"; });
      divided.pinned["ROWS_PER_WG"] = 1;
      divided.parameters.push_back({split.name, {1, 2, 4, 8}, split.help});
      paths.push_back(divided);
    }
    space.paths = paths;
    return spaces;
  }

  // The row walk's baseline: a team per row.
  Config baseline(const Shape& shape) const override {
    auto config = RowKernel::baseline(shape);
    config["SPLIT_STEPS"] = 0;
    return config;
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    if (auto problem = RowKernel::constraint_violation(config, shape, device); !problem.empty()) return problem;
    if (split_steps(config) == 0) return {};
    const std::uint64_t segment = segment_floats(config);
    if (segment < kMinSegment) {
      return kSplitSegments("a segment of " + std::to_string(segment) + " floats is shorter than " +
                            std::to_string(kMinSegment) + " (the scratch's size)");
    }
    if (segment >= row_length(shape)) {
      return kSplitSegments("a segment of " + std::to_string(segment) +
                            " floats (WG_SIZE*VEC*EPT*SPLIT_STEPS) holds the row of " +
                            std::to_string(row_length(shape)) + ": one workgroup would walk it, as SPLIT_STEPS=0 does");
    }
    return {};
  }

  // Split rows: ceil(n / segment) workgroups along x, a row of them per row
  // along y.
  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    auto plan = RowKernel::plan(config, shape);
    if (split_steps(config) > 0) {
      plan.dispatch = {DispatchAxis{1, static_cast<std::uint32_t>(segment_floats(config))}, DispatchAxis{0, 1},
                       DispatchAxis{}};
    }
    return plan;
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
    problem.buffers = {rowops::input_buffer("x", x), rowops::output_buffer("y", rows),
                       HostBuffer{"scratch", std::vector<std::uint8_t>(scratch_rule().bytes(shape)), false, false}};
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
    return rowops::floats_bytes(std::uint64_t{shape.at(0)} * shape.at(1) + shape.at(0)) + scratch_rule().bytes(shape);
  }

 protected:
  std::string template_file() const override { return "argmax.comp"; }
  std::vector<Binding> binding_list() const override {
    return {{"x", BindingRole::input, size_rule(4, {0, 1})},
            {"y", BindingRole::output, size_rule(4, {0})},
            {"scratch", BindingRole::scratch, scratch_rule()}};
  }
  bool uses_index_reduction() const override { return true; }
  std::uint64_t walk_length(const Config& config, const Shape& shape) const override {
    const std::uint64_t n = row_length(shape);
    return split_steps(config) == 0 ? n : std::min<std::uint64_t>(segment_floats(config), n);
  }
};

const KernelRegistration argmax_registration([] { return std::make_unique<Argmax>(); });

}  // namespace
}  // namespace vktune::kernels
