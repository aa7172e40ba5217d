#include "kernels/attention_mma.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "kernels/attention_rules.hpp"
#include "kernels/coopmat.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels::attention_mma {
namespace {

constexpr coopmat::MatrixShape kMatrix{16, 16, 16};
// Staged uvec4s per invocation for one stage (STEP entries of head_dim
// halves), times the stages in flight: past 16 (64 registers) the loads
// crowd out the accumulators on the H200 (a register budget, the pruning
// rule tensor-cores.stage-registers).
constexpr std::uint32_t kMaxStageWords = 16;
// The longest chunk the path was written for and tuned with on the H200.
constexpr std::uint32_t kMaxChunk = 256;

// The walk's parameters MMA=1 does not use, at the one value it takes them.
constexpr std::pair<const char*, int> kPinned[] = {{"LOADS", 1},    {"VEC", 8},   {"TOKENS", 2}, {"REDUCTION", 0},
                                                   {"MERGE", 1},    {"WIDEN", 0}, {"LEAN", 1}};

struct Layout {
  std::uint32_t warps, srow, prow, opnd, stage, tile;  // strides and regions in uvec4s, as the template computes them
};

Layout layout_of(const Config& config, const Shape& shape) {
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto step = static_cast<std::uint32_t>(config.at("STEP"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  const std::uint32_t hd = shape.at(2);
  Layout l{};
  l.warps = wg / coopmat::kWarp;
  l.srow = (hd + 8) / 8;
  l.prow = (chunk + 8) / 8;
  l.opnd = 32 * std::max(l.srow, l.prow);
  l.stage = step * l.srow;
  l.tile = l.warps * 64;
  return l;
}

}  // namespace

std::vector<Parameter> parameters() {
  return {
      {"MMA", {0, 1},
       "0 = the CUDA-core walk; 1 = tensor cores (GL_NV_cooperative_matrix, fp16 16x16x16 into fp32): K and V "
       "staged in shared memory STEP entries at a time, scores and weighted values as matrix products, q and the "
       "weights as two fp16 terms each; a two-pass softmax per chunk (KV_CHUNK > 0, its scores in shared memory; "
       "on NVIDIA pruned to chunks of at most 256)"},
      {"STEP", {32, 64}, "MMA=1: cache entries per stage (the loads of PREFETCH stages in flight); pinned to 32 otherwise"},
  };
}

std::vector<Parameter> varied() {
  return {{"WG_SIZE", {128, 256, 512}, ""},
          {"STEP", {32, 64}, ""},
          {"KV_CHUNK", {32, 64, 128, 256, 512, 1024, 2048}, ""},
          {"PREFETCH", {1, 2}, ""}};
}

Config pinned() {
  Config config{{"MMA", 1}};
  for (const auto& [name, value] : kPinned) config[name] = value;
  return config;
}

Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device, std::uint32_t max_splits) {
  if (auto p = coopmat::device_violation(kMatrix, device, "MMA=1"); !p.empty()) return p;
  for (const auto& [name, value] : kPinned) {
    if (config.at(name) != value) {
      return legality::kUnreadParameter("MMA=1 does not use " + std::string(name) + ": it stays at " +
                                        std::to_string(value));
    }
  }
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto step = static_cast<std::uint32_t>(config.at("STEP"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  const auto prefetch = static_cast<std::uint32_t>(config.at("PREFETCH"));
  const std::uint32_t hd = shape.at(2), kv_len = shape.at(3);
  const auto l = layout_of(config, shape);
  // The template keeps one or two register sets of stage loads (PREFETCH=0
  // would overwrite a stage it has yet to store).
  if (prefetch < 1 || prefetch > 2) return legality::kPathValue("MMA=1 takes PREFETCH 1 or 2 (stages of loads in flight)");
  if (chunk == 0) return legality::kPathValue("MMA=1 needs KV_CHUNK > 0: a chunk's scores are held in shared memory");
  if (chunk % step != 0) {
    return attention::kChunk("KV_CHUNK=" + std::to_string(chunk) + " is not a multiple of STEP=" + std::to_string(step));
  }
  if ((hd / 16) % l.warps != 0) {
    return attention::kSubgroupSplit("head_dim " + std::to_string(hd) + " has " + std::to_string(hd / 16) +
                                     " 16-dim tiles, not a multiple of the " + std::to_string(l.warps) + " subgroups");
  }
  if ((step * hd / 8) % wg != 0) {
    return attention::kSubgroupSplit("a stage of " + std::to_string(step) +
                                     " entries is not a whole number of 16-byte loads per invocation");
  }
  const std::uint32_t splits = (kv_len + chunk - 1) / chunk;
  if (splits > max_splits) {
    return attention::kMaxSplits("KV_CHUNK=" + std::to_string(chunk) + " splits the cache of " +
                                 std::to_string(kv_len) + " into more than " + std::to_string(max_splits) +
                                 " workgroups per head group");
  }
  return {};
}

std::vector<PruningRule> pruning() {
  auto rule = [](std::string name, std::string reason, DeviceFilter measured_on,
                 std::function<bool(const Config&, const Shape&)> prunes) {
    return PruningRule{std::move(name), std::move(reason), std::move(measured_on),
                       [prunes](const Config& c, const Shape& s) { return c.at("MMA") == 1 && prunes(c, s); }};
  };
  const DeviceFilter nvidia{kVendorNvidia, ""};
  return {
      // One chunk covering the cache is a single split (written out
      // directly); a larger one is the same work with idle shared memory.
      rule("tensor-cores.chunk-past-cache",
           "a chunk of twice the cache or more is the single split a shorter chunk makes, with idle shared memory",
           DeviceFilter{}, [](const Config& c, const Shape& s) { return static_cast<std::uint32_t>(c.at("KV_CHUNK")) >= 2 * s.at(3); }),
      rule("tensor-cores.wg512-unmeasured",
           "512 invocations were added for STREAM=1; the tensor-core path was tuned on the H200 with 128 and 256",
           nvidia, [](const Config& c, const Shape&) { return c.at("WG_SIZE") == 512; }),
      rule("tensor-cores.chunk-256",
           "the path was written for and tuned on the H200 with chunks of at most 256 entries (their scores and "
           "weights in its 48 KiB of shared memory)",
           nvidia, [](const Config& c, const Shape&) { return static_cast<std::uint32_t>(c.at("KV_CHUNK")) > kMaxChunk; }),
      rule("tensor-cores.stage-registers",
           "more than 16 16-byte loads in flight per invocation (PREFETCH*STEP*head_dim/8/WG_SIZE) crowd out the "
           "accumulators in the H200's register budget",
           nvidia, [](const Config& c, const Shape& s) {
             const auto words = static_cast<std::uint32_t>(c.at("PREFETCH") * c.at("STEP")) * s.at(2) / 8 /
                                static_cast<std::uint32_t>(c.at("WG_SIZE"));
             return words > kMaxStageWords;
           }),
  };
}

ShaderPlan plan(const Config& config, const Shape& shape, const Space& space, std::uint32_t max_heads,
                std::uint32_t max_splits) {
  ShaderPlan plan;
  plan.template_file = "attention_decode_mma.comp";
  plan.defines = rowops::config_defines(config, space);
  plan.defines.emplace_back("HD", std::to_string(shape.at(2)));
  plan.defines.emplace_back("MAX_HEADS", std::to_string(max_heads));
  plan.defines.emplace_back("MAX_SPLITS", std::to_string(max_splits));
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  const auto l = layout_of(config, shape);
  plan.local_size = {wg, 1, 1};
  // x: the splits of the cache, y: the head groups.
  plan.dispatch = {DispatchAxis{3, chunk}, DispatchAxis{0, qh}, DispatchAxis{}};
  // sh (operands, stage, a 16×16 float tile per subgroup), the chunk's
  // scores, (m, l) per head, the last-split flag.
  plan.shared_memory_bytes = 16 * (l.opnd + l.stage + l.tile) + 4 * qh * chunk + 8 * qh + 4;
  return plan;
}

}  // namespace vktune::kernels::attention_mma
