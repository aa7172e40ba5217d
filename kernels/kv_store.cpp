// kv_store: the KV-cache store of a decode step or a prefill. TOKENS rows of
// ROW fp32 values (the new tokens' k, or their v: kv_heads*head_dim values
// each) converted to fp16 and written into the cache's rows at their
// positions, one int32 per token; the cache holds KV_LEN rows of ROW fp16
// values ([kv_len][kv_heads][head_dim], as attention_decode reads it). A
// step stores k and v with one dispatch each. Template
// templates/kv_store.comp.
//
// The output is the whole cache: the rows at the positions must hold the
// fp16-rounded values, every other row must stay untouched (the validation
// checks it still holds its poison), so a store to a wrong row is caught.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/kernel_support.hpp"
#include "kernels/registry.hpp"
#include "reference/fp16.hpp"

namespace vktune::kernels {
namespace {

constexpr std::uint64_t kMaxCacheValues = 1ull << 31;  // fp16 values, indexed in 32 bits by 8-byte stores

class KvStore final : public Kernel {
 public:
  std::string name() const override { return "kv_store"; }
  std::string description() const override {
    return "KV-cache store: tokens rows of fp32 k (or v) converted to fp16 into the cache's rows at their int32 "
           "positions; the other rows untouched";
  }
  std::vector<std::string> shape_dims() const override { return {"tokens", "row", "kv_len"}; }

  void validate_shape(const Shape& shape) const override {
    if (shape.size() != 3) {
      throw Error(ErrorKind::usage,
                  name() + " takes shapes tokens,row,kv_len; got " + std::to_string(shape.size()) + " dimensions");
    }
    // The source (tokens x row) is indexed in 32 bits, the cache below; the
    // product of all three sizes nothing.
    support::check_dims(name(), {"tokens", "row"}, Shape{shape[0], shape[1]});
    if (shape[2] == 0) throw Error(ErrorKind::usage, name() + ": kv_len must be positive");
    if (shape[1] % 2 != 0) {
      throw Error(ErrorKind::usage, name() + ": row " + std::to_string(shape[1]) + " must be even (fp16 pairs)");
    }
    if (shape[0] > shape[2]) {
      throw Error(ErrorKind::usage, name() + ": " + std::to_string(shape[0]) + " tokens do not fit a cache of " +
                                        std::to_string(shape[2]) + " rows");
    }
    if (std::uint64_t{shape[1]} * shape[2] > kMaxCacheValues) {
      throw Error(ErrorKind::usage, name() + ": a cache of " + std::to_string(std::uint64_t{shape[1]} * shape[2]) +
                                        " values is too large for 32-bit indexing");
    }
  }

  // Llama-3-8B (8 KV heads of 128): one decode token and a 512-token prompt
  // into a cache of 4096.
  std::vector<Shape> default_shapes() const override { return {{1, 1024, 4096}, {512, 1024, 4096}}; }
  // Rows that take only pairs, a row no chunk divides, more tokens than a
  // workgroup's rows.
  std::vector<Shape> check_shapes() const override { return {{1, 6, 5}, {3, 34, 17}, {7, 1000, 64}}; }

  std::vector<Space> build_spaces() const override {
    Space space{"rows", "kv_store.comp", {}};
    space.parameters = {
        {"WG_SIZE", {64, 128, 256, 512}, "invocations per workgroup"},
        {"VEC", {2, 4, 8}, "fp16 values per store (uint, uvec2, uvec4); the row must be a multiple"},
        {"EPT", {1, 2, 4}, "stores per invocation, WG_SIZE apart"},
    };
    space.bindings = {{"src", BindingRole::input, size_rule(4, {0, 1})},
                      {"positions", BindingRole::input, size_rule(4, {0})},
                      {"cache", BindingRole::output, size_rule(2, {1, 2})}};
    return {space};
  }

  // 64 invocations of one 8-byte store up to rows of 1024 values (8 KV
  // heads of 128), 256 beyond; 4-byte stores where a row is too short for a
  // workgroup of 8-byte ones to keep half its lanes busy.
  Config baseline(const Shape& shape) const override {
    const std::uint32_t row = shape.at(1);
    const int wg = row <= 1024 ? 64 : 256;
    const int vec = row % 4 == 0 && std::uint64_t(wg) * 4 < 2ull * row ? 4 : 2;
    return {{"WG_SIZE", wg}, {"VEC", vec}, {"EPT", 1}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = support::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const auto ept = static_cast<std::uint32_t>(config.at("EPT"));
    if (shape[1] % vec != 0) {
      return legality::kDivides("VEC=" + std::to_string(vec) + " does not divide the row of " + std::to_string(shape[1]));
    }
    const std::uint64_t chunk = std::uint64_t{wg} * vec * ept;
    if (chunk >= 2 * std::uint64_t{shape[1]} && chunk > 128) {
      return legality::kIdleLanes("a workgroup's " + std::to_string(chunk) +
                                  " values (WG_SIZE*VEC*EPT) are twice the row of " + std::to_string(shape[1]) +
                                  " or more: over half the lanes idle");
    }
    return plan_limits_violation(plan(config, shape), shape, 3, device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = "kv_store.comp";
    plan.defines = support::config_defines(config, spaces()[0]);
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    plan.local_size = {wg, 1, 1};
    const auto chunk = wg * static_cast<std::uint32_t>(config.at("VEC") * config.at("EPT"));
    plan.dispatch = {DispatchAxis{1, chunk}, DispatchAxis{0, 1}, DispatchAxis{}};
    return plan;
  }

  // Distinct random positions (any order, so a kernel that writes row t for
  // token t is caught), values within fp16's range.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    validate_shape(shape);
    const std::uint32_t tokens = shape[0], row = shape[1], kv_len = shape[2];
    const auto src = support::random_values(std::size_t{tokens} * row, inputs.seed, -8.0f, 8.0f, inputs.kind);
    std::vector<std::int32_t> all(kv_len);
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 rng(inputs.seed ^ 0x2545f4914f6cdd1dull);
    std::shuffle(all.begin(), all.end(), rng);
    const std::vector<std::int32_t> positions(all.begin(), all.begin() + tokens);

    Problem problem;
    problem.shape = shape;
    problem.output_f16 = true;
    problem.expected.assign(std::size_t{kv_len} * row, untouched());
    for (std::uint32_t t = 0; t < tokens; ++t) {
      for (std::uint32_t i = 0; i < row; ++i) {
        const float value = src[std::size_t{t} * row + i];
        problem.expected[std::size_t(positions[t]) * row + i] = ref::fp16_to_fp32(ref::fp32_to_fp16(value));
      }
    }
    problem.buffers.push_back(support::input_buffer("src", src));
    problem.buffers.push_back(half::int32_buffer("positions", positions));
    problem.buffers.push_back(HostBuffer{"cache", std::vector<std::uint8_t>(std::size_t{kv_len} * row * 2), true});
    problem.output_index = 2;
    return problem;
  }

  // fp16 rounding of each value, compared with the reference's rounding to
  // nearest even: a driver rounding another way is off by one fp16 ulp
  // (2^-10 relative); a wrong row or half is off by the value itself.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-3, 1e-3}; }

  // Reads the fp32 rows and the positions, writes the fp16 rows.
  Metrics metrics(const Shape& shape) const override {
    const double tokens = shape.at(0), row = shape.at(1);
    return Metrics{tokens * row * (4 + 2) + tokens * 4, 0};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t tokens = shape.at(0), row = shape.at(1), kv_len = shape.at(2);
    return tokens * row * 4 + tokens * 4 + kv_len * row * 2;
  }
};

const KernelRegistration kv_store_registration([] { return std::make_unique<KvStore>(); });

}  // namespace
}  // namespace vktune::kernels
