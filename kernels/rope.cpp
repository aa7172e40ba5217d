// rope, rope_neox, rope_f16, rope_neox_f16, rope_cache, rope_neox_cache:
// rotary position embedding over (tokens, heads, head_dim) with one int32
// position per token, as reference/ops.hpp `rope` defines it. One template,
// templates/rope.comp. The layout (normal: pairs (2i, 2i+1); NeoX: pairs
// (i, i + head_dim/2)), the input storage (fp32 or fp16) and where the result
// goes are the kernel's meaning, so each of the six is its own kernel name,
// not a tuning parameter.
//
// The frequency base is an input (a one-float buffer), since it is the
// model's: the problems use 500000 (Llama 3). The fp16 kernels read fp16 x
// and write fp32 y: the rotated queries feed fp32 attention scores, and the
// comparison stays on the values the kernel computed, not on a second
// rounding; the reference rotates the fp16-rounded inputs.
//
// The cache kernels (rope_cache, rope_neox_cache; shape tokens, heads,
// head_dim, kv_len) fuse a decode step's rope of k with its KV-cache store
// (kv_store): fp32 k is rotated and written as fp16 straight into the cache
// rows at the tokens' positions ([kv_len][heads][head_dim], what
// attention_decode reads), one dispatch instead of two with a barrier
// between. As with kv_store the output is the whole cache: every row no token
// goes to must stay untouched, so a store to row t for token t, or to any
// other wrong row, is caught.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/registry.hpp"
#include "kernels/rope_angle.hpp"
#include "kernels/row_ops.hpp"
#include "reference/fp16.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

using rope_angle::kFreqBase;
using rope_angle::kMaxPosition;
constexpr std::uint32_t kMaxHeadDim = 1024;
// fp16 values of a cache, indexed in 32 bits by 16-byte stores (as kv_store).
constexpr std::uint64_t kMaxCacheValues = 1ull << 31;
// An invocation walks its work items in at most this many steps.
constexpr std::uint32_t kMaxSteps = 8;

// rope's own legality rules (kernels/legality.hpp has the shared ones).
constexpr RuleId kCacheWords{"rope.cache_words"};    // fp16 cache words written whole by one invocation
constexpr RuleId kHeadGroups{"rope.head_groups"};    // HEADS_PER_THREAD divides HEADS_PER_WG

class Rope final : public Kernel {
 public:
  // cache: y is the fp16 KV cache, rows at the positions (fp32 x only).
  Rope(bool neox, bool f16, bool cache = false) : neox_(neox), f16_(f16), cache_(cache) {
    if (f16_ && cache_) throw Error(ErrorKind::internal, "rope: the cache mode reads fp32 x");
  }

  std::string name() const override {
    return std::string("rope") + (neox_ ? "_neox" : "") + (f16_ ? "_f16" : "") + (cache_ ? "_cache" : "");
  }

  std::string description() const override {
    return std::string("rotary position embedding, ") +
           (neox_ ? "NeoX layout (pairs i, i+head_dim/2)" : "normal layout (pairs 2i, 2i+1)") +
           ", positions per token, frequency base as an input; " +
           (cache_ ? "fp32 x, written as fp16 into the KV cache's rows at the positions, the other rows untouched"
            : f16_ ? "fp16 x, fp32 y"
                   : "fp32 x and y");
  }

  std::vector<std::string> shape_dims() const override {
    if (cache_) return {"tokens", "heads", "head_dim", "kv_len"};
    return {"tokens", "heads", "head_dim"};
  }

  void validate_shape(const Shape& shape) const override {
    if (!cache_) {
      rowops::check_dims(name(), shape_dims(), shape);
    } else {
      // x (tokens x heads x head_dim) is indexed in 32 bits, the cache below;
      // the product of all four sizes nothing.
      rowops::check_dim_count(name(), shape_dims(), shape);
      rowops::check_dims(name(), {"tokens", "heads", "head_dim"}, Shape{shape[0], shape[1], shape[2]});
    }
    if (shape[2] % 2 != 0 || shape[2] > kMaxHeadDim) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(shape[2]) + " must be even and at most " +
                                        std::to_string(kMaxHeadDim));
    }
    if (!cache_) return;
    // Outputs i and i+1 of a NeoX half share a 32-bit word of the cache: the
    // head_dim/2 pairs must come in twos.
    if (neox_ && shape[2] % 4 != 0) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(shape[2]) +
                                        " must be a multiple of 4 (pairs i, i+1 share a 32-bit word of the cache)");
    }
    if (shape[0] > shape[3]) {
      throw Error(ErrorKind::usage, name() + ": " + std::to_string(shape[0]) + " tokens do not fit a cache of " +
                                        std::to_string(shape[3]) + " rows");
    }
    // The tolerance below is argued for positions up to 8192.
    if (shape[3] > static_cast<std::uint32_t>(kMaxPosition)) {
      throw Error(ErrorKind::usage, name() + ": kv_len " + std::to_string(shape[3]) + " is above " +
                                        std::to_string(kMaxPosition) +
                                        ", the largest position whose angle the tolerance covers");
    }
    const std::uint64_t cache_values = std::uint64_t{shape[1]} * shape[2] * shape[3];
    if (cache_values > kMaxCacheValues) {
      throw Error(ErrorKind::usage,
                  name() + ": a cache of " + std::to_string(cache_values) + " values is too large for 32-bit indexing");
    }
  }

  // Llama-3-8B queries: one decode token and a 512-token prompt. The cache
  // kernels: its k (8 KV heads) into a cache of 4096.
  std::vector<Shape> default_shapes() const override {
    if (cache_) return {{1, 8, 128, 4096}, {512, 8, 128, 4096}};
    return {{1, 32, 128}, {512, 32, 128}};
  }

  // Odd head counts (head groups with a tail), a head_dim whose half is not a
  // power of two, one token and several. The cache kernels: small odd caches
  // (lavapipe runs them in the CI gate), one row of five taken and three of
  // seventeen.
  std::vector<Shape> check_shapes() const override {
    if (cache_) return {{1, 3, 64, 5}, {3, 5, 80, 17}};
    return {{1, 5, 64}, {3, 3, 80}, {6, 7, 128}};
  }

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
                      {"base", BindingRole::input, size_rule(4, {})}};
    if (cache_) {
      space.bindings.push_back({"cache", BindingRole::output, size_rule(2, {1, 2, 3})});
    } else {
      space.bindings.push_back({"y", BindingRole::output, size_rule(4, {0, 1, 2})});
    }
    return {space};
  }

  // The fewest pairs an invocation stores at once: NeoX into the cache packs
  // outputs i and i+1 of a half into one fp16 word.
  int min_vec() const { return neox_ && cache_ ? 2 : 1; }

  // One pair per invocation (two for NeoX into the cache), 64 invocations
  // filled with as many heads as that takes (32 when even all heads have
  // fewer).
  Config baseline(const Shape& shape) const override {
    const int vec = min_vec();
    const std::uint32_t items = shape.at(2) / 2 / vec, heads = shape.at(1);
    int hpw = 1;
    while (hpw < 16 && static_cast<std::uint32_t>(hpw) * items < 64 && static_cast<std::uint32_t>(hpw) * 2 <= heads) {
      hpw *= 2;
    }
    const int wg = static_cast<std::uint32_t>(hpw) * items >= 64 ? 64 : 32;
    return {{"WG_SIZE", wg}, {"HEADS_PER_WG", hpw}, {"HEADS_PER_THREAD", 1}, {"VEC", vec}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto hpw = static_cast<std::uint32_t>(config.at("HEADS_PER_WG"));
    const auto hpt = static_cast<std::uint32_t>(config.at("HEADS_PER_THREAD"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const std::uint32_t heads = shape[1], half = shape[2] / 2;
    if (vec < static_cast<std::uint32_t>(min_vec())) {
      return kCacheWords(
          "VEC=1 with the NeoX layout into the fp16 cache: outputs i and i+1 share a 32-bit word, written by one "
          "invocation (VEC >= 2)");
    }
    if (half % vec != 0) {
      return legality::kDivides("VEC=" + std::to_string(vec) + " does not divide the " + std::to_string(half) +
                                " pairs of a head");
    }
    if (hpw % hpt != 0) return kHeadGroups("HEADS_PER_THREAD must divide HEADS_PER_WG");
    if (hpw > 1 && hpw > heads) {
      return legality::kIdleLanes("HEADS_PER_WG=" + std::to_string(hpw) + " exceeds the " + std::to_string(heads) +
                                  " heads");
    }
    if (hpt > 1 && hpt > heads) {
      return legality::kIdleLanes("HEADS_PER_THREAD=" + std::to_string(hpt) + " exceeds the " + std::to_string(heads) +
                                  " heads");
    }
    const std::uint32_t items = half / vec * (hpw / hpt);
    if (wg > std::max(items, 32u)) {
      return legality::kIdleLanes("WG_SIZE=" + std::to_string(wg) + " exceeds the workgroup's " +
                                  std::to_string(items) + " work items (lanes would idle)");
    }
    if ((items + wg - 1) / wg > kMaxSteps) {
      return legality::kSteps(std::to_string(items) + " work items take more than " + std::to_string(kMaxSteps) +
                              " steps of WG_SIZE=" + std::to_string(wg));
    }
    return plan_limits_violation(plan(config, shape), shape, 4, device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = "rope.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    plan.defines.emplace_back("NEOX", neox_ ? "1" : "0");
    plan.defines.emplace_back("F16", f16_ ? "1" : "0");
    plan.defines.emplace_back("CACHE", cache_ ? "1" : "0");
    plan.local_size = {static_cast<std::uint32_t>(config.at("WG_SIZE")), 1, 1};
    plan.dispatch = {DispatchAxis{1, static_cast<std::uint32_t>(config.at("HEADS_PER_WG"))}, DispatchAxis{0, 1},
                     DispatchAxis{}};
    return plan;
  }

  // x uniform in [-1, 1) (fp16-rounded for the f16 kernels), positions
  // uniform in [0, 8192) with the first token at 8191, the largest angle.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    if (cache_) return make_cache_problem(shape, inputs);
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

  // The cache kernels: x as above; positions distinct, drawn at random from
  // [0, kv_len) in shuffled order (as kv_store: a kernel that writes row t
  // for token t is caught), the first token at kv_len - 1 (the largest angle
  // the cache holds, at most 8191). Expected: the fp16 rounding (ties to
  // even, as packHalf2x16) of the reference's rotated value at each element
  // of a written row, untouched() elsewhere.
  Problem make_cache_problem(const Shape& shape, const Inputs& inputs) const {
    validate_shape(shape);
    const std::uint32_t tokens = shape[0], kv_len = shape[3];
    const std::size_t row = std::size_t{shape[1]} * shape[2];
    auto x = rowops::random_values(tokens * row, inputs.seed, -1.0f, 1.0f, inputs.kind);
    std::vector<std::int32_t> all(kv_len);
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 rng(inputs.seed ^ 0x2545f4914f6cdd1dull);
    std::shuffle(all.begin(), all.end(), rng);
    std::iter_swap(all.begin(), std::find(all.begin(), all.end(), static_cast<std::int32_t>(kv_len - 1)));
    const std::vector<std::int32_t> positions(all.begin(), all.begin() + tokens);

    Problem problem;
    problem.shape = shape;
    problem.output_f16 = true;
    const auto rotated = ref::rope(x, shape[2], positions, neox_ ? ref::RopeLayout::neox : ref::RopeLayout::normal,
                                   static_cast<double>(kFreqBase));
    problem.expected.assign(std::size_t{kv_len} * row, untouched());
    for (std::uint32_t t = 0; t < tokens; ++t) {
      for (std::size_t i = 0; i < row; ++i) {
        const auto value = static_cast<float>(rotated[t * row + i]);
        problem.expected[std::size_t(positions[t]) * row + i] = ref::fp16_to_fp32(ref::fp32_to_fp16(value));
      }
    }
    problem.buffers.push_back(rowops::input_buffer("x", x));
    problem.buffers.push_back(half::int32_buffer("pos", positions));
    problem.buffers.push_back(rowops::input_buffer("base", {kFreqBase}));
    problem.buffers.push_back(HostBuffer{"cache", std::vector<std::uint8_t>(std::size_t{kv_len} * row * 2), true});
    problem.output_index = 3;
    return problem;
  }

  // kernels/rope_angle.hpp argues for it.
  Tolerance tolerance(const Shape&) const override { return rope_angle::kTolerance; }

  // Reads x and the positions, writes y (the cache kernels: the tokens' fp16
  // rows, not the whole cache); a rotation (6 flops) per pair.
  Metrics metrics(const Shape& shape) const override {
    const double tokens = shape.at(0), values = tokens * shape.at(1) * shape.at(2);
    const double out = cache_ ? 2 : 4;
    return Metrics{values * ((f16_ ? 2 : 4) + out) + tokens * 4, values / 2 * 6};
  }

  // x, pos, base and y (the cache kernels: the whole fp16 cache).
  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t tokens = shape.at(0), values = tokens * shape.at(1) * shape.at(2);
    if (cache_) return values * 4 + tokens * 4 + 4 + std::uint64_t{shape.at(1)} * shape.at(2) * shape.at(3) * 2;
    return values * ((f16_ ? 2 : 4) + 4) + tokens * 4 + 4;
  }

 private:
  bool neox_, f16_, cache_;
};

const KernelRegistration rope_normal_f32([] { return std::make_unique<Rope>(false, false); });
const KernelRegistration rope_neox_f32([] { return std::make_unique<Rope>(true, false); });
const KernelRegistration rope_normal_f16([] { return std::make_unique<Rope>(false, true); });
const KernelRegistration rope_neox_f16([] { return std::make_unique<Rope>(true, true); });
const KernelRegistration rope_normal_cache([] { return std::make_unique<Rope>(false, false, true); });
const KernelRegistration rope_neox_cache([] { return std::make_unique<Rope>(true, false, true); });

}  // namespace
}  // namespace vktune::kernels
