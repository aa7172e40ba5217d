// attention_decode: one query token per head against an fp16 KV cache, with
// grouped-query heads, as reference/ops.hpp `attention` defines it (scale
// 1/sqrt(head_dim); the query sees all kv_len cache entries). Shape
// (heads, kv_heads, head_dim, kv_len); q fp32 [heads][head_dim], K and V fp16
// [kv_len][kv_heads][head_dim], out fp32 [heads][head_dim]. One template,
// templates/attention_decode.comp.
//
// The KV split is the parameter KV_CHUNK, cache entries per workgroup
// (0 = all: one workgroup per head). It is a chunk length rather than a split
// count because a dispatch rule divides a shape dim by a constant: the
// splits are ceil(kv_len / KV_CHUNK) workgroups along x, so a tuned chunk
// keeps its meaning at any cache length. The kernel interface has one
// dispatch per variant, so the splits are merged inside it: each workgroup
// of a head writes a partial (max, sum, accumulator) to a scratch buffer and
// the last one to finish (an atomic counter per head, reset by that
// workgroup) merges them. The scratch buffer is sized for the most splits
// (64), so one problem serves every variant.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr std::uint32_t kMaxHeads = 256;  // counters in the scratch buffer (MAX_HEADS)
constexpr std::uint32_t kMaxSplits = 64;  // MAX_SPLITS
constexpr std::uint32_t kMaxHeadDim = 512;
constexpr std::uint32_t kChunksPerLane = 4;  // CMAX in the template

std::uint64_t scratch_bytes(const Shape& shape) {
  return 4 * (kMaxHeads + std::uint64_t{shape.at(0)} * kMaxSplits * (shape.at(2) + 2));
}

std::uint64_t kv_values(const Shape& shape) { return std::uint64_t{shape.at(3)} * shape.at(1) * shape.at(2); }

class AttentionDecode final : public Kernel {
 public:
  std::string name() const override { return "attention_decode"; }

  std::string description() const override {
    return "decode attention: one fp32 query token per head against an fp16 KV cache [kv_len][kv_heads][head_dim], "
           "grouped-query heads, scale 1/sqrt(head_dim), fp32 out; KV length split across workgroups (KV_CHUNK entries each) "
           "merged in the same dispatch";
  }

  std::vector<std::string> shape_dims() const override { return {"heads", "kv_heads", "head_dim", "kv_len"}; }

  void validate_shape(const Shape& shape) const override {
    rowops::check_dims(name(), shape_dims(), shape);
    if (shape[0] % shape[1] != 0) {
      throw Error(ErrorKind::usage, name() + ": heads " + std::to_string(shape[0]) +
                                        " must be a multiple of kv_heads " + std::to_string(shape[1]));
    }
    if (shape[0] > kMaxHeads) {
      throw Error(ErrorKind::usage, name() + ": at most " + std::to_string(kMaxHeads) + " heads");
    }
    if (shape[2] % 16 != 0 || shape[2] > kMaxHeadDim) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(shape[2]) +
                                        " must be a multiple of 16 and at most " + std::to_string(kMaxHeadDim));
    }
    if (kv_values(shape) >= (1ull << 31)) {
      throw Error(ErrorKind::usage, name() + ": a cache of " + std::to_string(kv_values(shape)) +
                                        " values is too large for 32-bit indexing");
    }
  }

  // Llama-3-8B: 32 query heads on 8 KV heads of 128, short to long caches.
  std::vector<Shape> default_shapes() const override {
    return {{32, 8, 128, 512}, {32, 8, 128, 4096}, {32, 8, 128, 8192}};
  }

  // Grouped heads (2 and 4 per KV head), a cache length that is no multiple
  // of any slot count or split, head_dim 64 and 128.
  std::vector<Shape> check_shapes() const override { return {{4, 2, 64, 37}, {8, 2, 128, 300}}; }

  std::vector<Space> spaces() const override {
    Space space{"decode", "attention_decode.comp", {}};
    space.parameters = {
        {"WG_SIZE", {64, 128, 256}, "invocations per workgroup"},
        {"TEAM", {8, 16, 32}, "lanes per KV token (WG_SIZE/TEAM tokens in flight)"},
        {"VEC", {2, 4, 8}, "fp16 values per K/V load (uint, uvec2, uvec4)"},
        {"KV_CHUNK", {0, 32, 64, 128, 256, 512, 1024, 2048},
         "cache entries per workgroup (ceil(kv_len/KV_CHUNK) workgroups per head, merged through scratch "
         "memory and a per-head atomic counter); 0 = one workgroup per head"},
        {"REDUCTION", {0, 1}, "a team's dot product: 0 = subgroup shuffle-xor butterfly, 1 = shared-memory tree"},
    };
    return {space};
  }

  std::size_t space_index(const Shape&) const override { return 0; }

  // Eight lanes per token with 16-byte loads (head_dim 128: two loads each),
  // 128 invocations (16 tokens in flight), subgroup sums; one workgroup per
  // head up to 1024 cache entries, else chunks of 512 (8192 entries: 16
  // workgroups per head).
  Config baseline(const Shape& shape) const override {
    const int chunk = shape.at(3) > 1024 ? 512 : 0;
    return {{"WG_SIZE", 128}, {"TEAM", 8}, {"VEC", 8}, {"KV_CHUNK", chunk}, {"REDUCTION", 0}};
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto team = static_cast<std::uint32_t>(config.at("TEAM"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
    const std::uint32_t head_dim = shape[2], kv_len = shape[3];
    const std::uint32_t slots = wg / team;
    if (head_dim % (team * vec) != 0) {
      return "TEAM*VEC = " + std::to_string(team * vec) + " does not divide head_dim " + std::to_string(head_dim);
    }
    if (vec < 8 && 2 * team * vec <= head_dim) {
      return "VEC=" + std::to_string(vec) + ": loads twice as wide also fit head_dim " + std::to_string(head_dim) +
             " with TEAM=" + std::to_string(team) + " (narrower loads are only varied where they do not)";
    }
    if (head_dim / (team * vec) > kChunksPerLane) {
      return "head_dim " + std::to_string(head_dim) + " needs more than " + std::to_string(kChunksPerLane) +
             " loads per lane with TEAM*VEC = " + std::to_string(team * vec);
    }
    if (chunk > 0) {
      if (chunk >= kv_len) return "KV_CHUNK=" + std::to_string(chunk) + " covers the cache: KV_CHUNK=0 without merging";
      if ((kv_len + chunk - 1) / chunk > kMaxSplits) {
        return "KV_CHUNK=" + std::to_string(chunk) + " splits the cache of " + std::to_string(kv_len) +
               " into more than " + std::to_string(kMaxSplits) + " workgroups per head";
      }
      if (chunk < 4 * slots) {
        return "KV_CHUNK=" + std::to_string(chunk) + " is less than four steps of the " + std::to_string(slots) +
               " slots (WG_SIZE/TEAM): the merge would cost more than the walk";
      }
    }
    if (slots > 2 * kv_len && wg > 64) {
      return "WG_SIZE/TEAM = " + std::to_string(slots) + " slots exceed twice the " + std::to_string(kv_len) +
             " cache entries";
    }
    // The shuffle butterfly needs shuffles and the team inside the smallest
    // subgroup; where it runs, the shared-memory tree (log2(TEAM) barriers
    // per step) is never faster, so the tree is only the fallback.
    const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
    const bool butterfly = device.subgroup_in_compute && device.has_subgroup_operation("shuffle") && team <= smallest;
    if (config.at("REDUCTION") == 0 && !butterfly) {
      return "REDUCTION=0 needs subgroup shuffles in compute shaders and TEAM=" + std::to_string(team) +
             " within the device's smallest subgroup of " + std::to_string(smallest);
    }
    if (config.at("REDUCTION") == 1 && butterfly) {
      return "REDUCTION=1 (shared-memory tree) is only the fallback where REDUCTION=0 cannot run TEAM=" +
             std::to_string(team);
    }
    return plan_limits_violation(plan(config, shape), shape, 5, device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = "attention_decode.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    plan.defines.emplace_back("MAX_HEADS", std::to_string(kMaxHeads));
    plan.defines.emplace_back("MAX_SPLITS", std::to_string(kMaxSplits));
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto team = static_cast<std::uint32_t>(config.at("TEAM"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    plan.local_size = {wg, 1, 1};
    // x: the splits of the cache (kv_len / KV_CHUNK, or one), y: the heads.
    const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
    plan.dispatch = {chunk > 0 ? DispatchAxis{3, chunk} : DispatchAxis{}, DispatchAxis{0, 1}, DispatchAxis{}};
    plan.shared_memory_bytes = 4 * (2 * (wg / team) + wg * vec + (config.at("REDUCTION") == 1 ? wg : 0)) + 4;
    return plan;
  }

  // q uniform in [-2, 2) (scores of a few units: a softmax that is neither
  // flat nor one-hot), K and V uniform in [-1, 1) rounded to fp16; the
  // reference reads the rounded cache.
  Problem make_problem(const Shape& shape, std::uint64_t seed) const override {
    validate_shape(shape);
    const std::size_t heads = shape[0], head_dim = shape[2];
    const auto q = rowops::random_values(heads * head_dim, seed, -2.0f, 2.0f);
    auto k = rowops::random_values(kv_values(shape), seed ^ 0x6a09e667f3bcc909ull);
    auto v = rowops::random_values(kv_values(shape), seed ^ 0xbb67ae8584caa73bull);
    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(rowops::input_buffer("q", q));
    problem.buffers.push_back(half::rounded_buffer("k", k, true));
    problem.buffers.push_back(half::rounded_buffer("v", v, true));
    problem.buffers.push_back(HostBuffer{"scratch", std::vector<std::uint8_t>(scratch_bytes(shape)), false, false});
    problem.buffers.push_back(rowops::output_buffer("out", heads * head_dim));
    problem.output_index = 4;
    problem.expected = ref::attention(q, k, v, {shape[0], shape[1], shape[2], shape[3]});
    return problem;
  }

  // fp32 throughout: head_dim-term dot products, exp (a few ulps), and per
  // slot an online softmax over KV_CHUNK/slots entries, merged by sums over
  // slots and splits. The output is an average of values of either sign, so
  // it is ~1/sqrt(kv_len) of |v| while the errors scale with the sum of
  // |p v|: measured 2e-7 to 4e-7 relative L2 at every default shape on
  // lavapipe. A wrong KV head or scale moves it by O(1), a dropped or
  // doubled entry by ~1e-2 relative at 8192 entries.
  Tolerance tolerance(const Shape&) const override { return Tolerance{2e-5, 1e-4}; }

  // Reads q and the two caches, writes out; per entry and head a dot product
  // and a scaled accumulation (4 flops per value).
  Metrics metrics(const Shape& shape) const override {
    const double heads = shape.at(0), head_dim = shape.at(2), kv_len = shape.at(3);
    return Metrics{heads * head_dim * 8 + 2.0 * 2.0 * static_cast<double>(kv_values(shape)),
                   4 * heads * kv_len * head_dim};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t out = std::uint64_t{shape.at(0)} * shape.at(2) * 4;
    return 2 * out + 2 * 2 * kv_values(shape) + scratch_bytes(shape);
  }
};

const KernelRegistration registration([] { return std::make_unique<AttentionDecode>(); });

}  // namespace
}  // namespace vktune::kernels
