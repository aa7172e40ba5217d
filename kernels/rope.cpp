// rope, rope_neox, rope_f16, rope_neox_f16: rotary position embedding over
// (tokens, heads, head_dim) with one int32 position per token, as
// reference/ops.hpp `rope` defines it. One template, templates/rope.comp.
// The layout (normal: pairs (2i, 2i+1); NeoX: pairs (i, i + head_dim/2)) and
// the input storage (fp32 or fp16) are the kernel's meaning, so each of the
// four is its own kernel name, not a tuning parameter.
//
// The frequency base is an input (a one-float buffer), since it is the
// model's: the problems use 500000 (Llama 3). The fp16 kernels read fp16 x
// and write fp32 y: the rotated queries feed fp32 attention scores, and the
// comparison stays on the values the kernel computed, not on a second
// rounding; the reference rotates the fp16-rounded inputs.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr float kFreqBase = 500000.0f;
constexpr std::int32_t kMaxPosition = 8192;
constexpr std::uint32_t kMaxHeadDim = 1024;
// An invocation walks its work items in at most this many steps.
constexpr std::uint32_t kMaxSteps = 8;

class Rope final : public Kernel {
 public:
  Rope(bool neox, bool f16) : neox_(neox), f16_(f16) {}

  std::string name() const override {
    return std::string("rope") + (neox_ ? "_neox" : "") + (f16_ ? "_f16" : "");
  }

  std::string description() const override {
    return std::string("rotary position embedding, ") +
           (neox_ ? "NeoX layout (pairs i, i+head_dim/2)" : "normal layout (pairs 2i, 2i+1)") +
           ", positions per token, frequency base as an input; " + (f16_ ? "fp16 x, fp32 y" : "fp32 x and y");
  }

  std::vector<std::string> shape_dims() const override { return {"tokens", "heads", "head_dim"}; }

  void validate_shape(const Shape& shape) const override {
    rowops::check_dims(name(), shape_dims(), shape);
    if (shape[2] % 2 != 0 || shape[2] > kMaxHeadDim) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(shape[2]) + " must be even and at most " +
                                        std::to_string(kMaxHeadDim));
    }
  }

  // Llama-3-8B queries: one decode token and a 512-token prompt.
  std::vector<Shape> default_shapes() const override { return {{1, 32, 128}, {512, 32, 128}}; }

  // Odd head counts (head groups with a tail), a head_dim whose half is not a
  // power of two, one token and several.
  std::vector<Shape> check_shapes() const override { return {{1, 5, 64}, {3, 3, 80}, {6, 7, 128}}; }

  std::vector<Space> build_spaces() const override {
    Space space{"rope", "rope.comp", {}};
    space.parameters = {
        {"WG_SIZE", {32, 64, 128, 256}, "invocations per workgroup"},
        {"HEADS_PER_WG", {1, 2, 4, 8, 16}, "heads of one token per workgroup"},
        {"HEADS_PER_THREAD", {1, 2, 4}, "heads an invocation rotates with one sin/cos evaluation"},
        {"VEC", {1, 2, 4}, "consecutive pairs per invocation, loaded as vectors"},
    };
    space.bindings = {{"x", BindingRole::input, size_rule(f16_ ? 2 : 4, {0, 1, 2})},
                      {"pos", BindingRole::input, size_rule(4, {0})},
                      {"base", BindingRole::input, size_rule(4, {})},
                      {"y", BindingRole::output, size_rule(4, {0, 1, 2})}};
    return {space};
  }


  // One pair per invocation, 64 invocations filled with as many heads as
  // that takes (32 when even all heads have fewer pairs).
  Config baseline(const Shape& shape) const override {
    const std::uint32_t half = shape.at(2) / 2, heads = shape.at(1);
    int hpw = 1;
    while (hpw < 16 && static_cast<std::uint32_t>(hpw) * half < 64 && static_cast<std::uint32_t>(hpw) * 2 <= heads) {
      hpw *= 2;
    }
    const int wg = static_cast<std::uint32_t>(hpw) * half >= 64 ? 64 : 32;
    return {{"WG_SIZE", wg}, {"HEADS_PER_WG", hpw}, {"HEADS_PER_THREAD", 1}, {"VEC", 1}};
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto hpw = static_cast<std::uint32_t>(config.at("HEADS_PER_WG"));
    const auto hpt = static_cast<std::uint32_t>(config.at("HEADS_PER_THREAD"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const std::uint32_t heads = shape[1], half = shape[2] / 2;
    if (half % vec != 0) {
      return "VEC=" + std::to_string(vec) + " does not divide the " + std::to_string(half) + " pairs of a head";
    }
    if (hpw % hpt != 0) return "HEADS_PER_THREAD must divide HEADS_PER_WG";
    if (hpw > 1 && hpw > heads) {
      return "HEADS_PER_WG=" + std::to_string(hpw) + " exceeds the " + std::to_string(heads) + " heads";
    }
    if (hpt > 1 && hpt > heads) {
      return "HEADS_PER_THREAD=" + std::to_string(hpt) + " exceeds the " + std::to_string(heads) + " heads";
    }
    const std::uint32_t items = half / vec * (hpw / hpt);
    if (wg > std::max(items, 32u)) {
      return "WG_SIZE=" + std::to_string(wg) + " exceeds the workgroup's " + std::to_string(items) +
             " work items (lanes would idle)";
    }
    if ((items + wg - 1) / wg > kMaxSteps) {
      return std::to_string(items) + " work items take more than " + std::to_string(kMaxSteps) +
             " steps of WG_SIZE=" + std::to_string(wg);
    }
    return plan_limits_violation(plan(config, shape), shape, 4, device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = "rope.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    plan.defines.emplace_back("NEOX", neox_ ? "1" : "0");
    plan.defines.emplace_back("F16", f16_ ? "1" : "0");
    plan.local_size = {static_cast<std::uint32_t>(config.at("WG_SIZE")), 1, 1};
    plan.dispatch = {DispatchAxis{1, static_cast<std::uint32_t>(config.at("HEADS_PER_WG"))}, DispatchAxis{0, 1},
                     DispatchAxis{}};
    return plan;
  }

  // x uniform in [-1, 1) (fp16-rounded for the f16 kernels), positions
  // uniform in [0, 8192) with the first token at 8191, the largest angle.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t tokens = shape[0], values = tokens * shape[1] * shape[2];
    auto x = rowops::random_values(values, seed, -1.0f, 1.0f, inputs.kind);
    std::mt19937_64 rng(seed ^ 0x2545f4914f6cdd1dull);
    std::uniform_int_distribution<std::int32_t> dist(0, kMaxPosition - 1);
    std::vector<std::int32_t> positions(tokens);
    for (auto& p : positions) p = dist(rng);
    positions[0] = kMaxPosition - 1;

    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(f16_ ? half::rounded_buffer("x", x, true) : rowops::input_buffer("x", x));
    problem.buffers.push_back(half::int32_buffer("pos", positions));
    problem.buffers.push_back(rowops::input_buffer("base", {kFreqBase}));
    problem.buffers.push_back(rowops::output_buffer("y", values));
    problem.output_index = 3;
    problem.expected = ref::rope(x, shape[2], positions, neox_ ? ref::RopeLayout::neox : ref::RopeLayout::normal,
                                 static_cast<double>(kFreqBase));
    return problem;
  }

  // The angle is the limit: theta = p * base^(-2i/d) in fp32 at p up to 8192
  // is off by up to half an ulp of 8192 (5e-4 rad) from its rounding, plus
  // the driver's exp2 (a few ulps of the frequency: ~1e-3 rad at p = 8192);
  // after the range reduction sin/cos add ~1e-6 in practice (2^-11 allowed
  // by the Vulkan spec). Rotated values of size ~1 are then off by ~1e-3 at
  // worst and ~2e-4 in rms. A wrong pair, layout, position or frequency moves
  // values by O(1).
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-3, 5e-3}; }

  // Reads x and the positions, writes y; a rotation (6 flops) per pair.
  Metrics metrics(const Shape& shape) const override {
    const double tokens = shape.at(0), values = tokens * shape.at(1) * shape.at(2);
    return Metrics{values * ((f16_ ? 2 : 4) + 4) + tokens * 4, values / 2 * 6};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t tokens = shape.at(0), values = tokens * shape.at(1) * shape.at(2);
    return values * ((f16_ ? 2 : 4) + 4) + tokens * 4 + 4;
  }

 private:
  bool neox_, f16_;
};

const KernelRegistration normal_f32([] { return std::make_unique<Rope>(false, false); });
const KernelRegistration neox_f32([] { return std::make_unique<Rope>(true, false); });
const KernelRegistration normal_f16([] { return std::make_unique<Rope>(false, true); });
const KernelRegistration neox_f16([] { return std::make_unique<Rope>(true, true); });

}  // namespace
}  // namespace vktune::kernels
