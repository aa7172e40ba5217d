#include "kernels/attention_walk.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention_rules.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels::attention_walk {

std::uint32_t team_of(std::uint32_t head_dim, std::uint32_t dims) {
  const std::uint32_t need = (head_dim + dims - 1) / dims;
  std::uint32_t team = 1;
  while (team < need) team *= 2;
  return team;
}

namespace {

// Registers per lane, in 32-bit words: the queries and accumulators of its QH
// heads (2*QH*LOADS*VEC) and the K and V words of a step (TOKENS*LOADS*VEC,
// twice that with PREFETCH). Past 160 the H200 spills: PREFETCH=1 with
// LOADS=2 (head_dim 128, four heads) ran at 79 us against 34 us without.
// The pruning rule walk.registers, for NVIDIA (kMaxHeadFloats, in the
// header, bounds the first).
constexpr std::uint32_t kMaxStepWords = 32;   // TOKENS*LOADS*VEC
constexpr std::uint32_t kMaxLaneWords = 160;
// 32-bit registers one invocation may hold on any GPU: past it, words spill.
constexpr std::uint32_t kRegisterFile = 255;
// The subgroup of every NVIDIA GPU, for the rules measured on the H200.
constexpr std::uint32_t kNvidiaSubgroup = 32;

// A walk config (MMA=0, STREAM=0) and what the template derives from it.
struct Walk {
  std::uint32_t wg, loads, vec, qh, tokens, prefetch, chunk, reduction, merge, widen, lean;
  bool walks;          // MMA=0 and STREAM=0: the config is the walk's
  std::uint32_t dims;  // LOADS*VEC: a lane's dims per head
  std::uint32_t team;  // lanes per cache entry
  std::uint32_t step;  // entries per workgroup step (WG_SIZE/team*TOKENS)
};

Walk walk_of(const Config& config, const Shape& shape) {
  const auto [chunk, lean, loads, merge, mma, prefetch, qh, reduction, stream, tokens, vec, wg, widen] =
      support::ordered_values<13>(config, {"KV_CHUNK", "LEAN", "LOADS", "MERGE", "MMA", "PREFETCH", "QH", "REDUCTION",
                                           "STREAM", "TOKENS", "VEC", "WG_SIZE", "WIDEN"});
  auto u = [](int value) { return static_cast<std::uint32_t>(value); };
  Walk w{u(wg),        u(loads), u(vec),   u(qh),   u(tokens),           u(prefetch), u(chunk), u(reduction),
         u(merge),     u(widen), u(lean),  mma == 0 && stream == 0, 0,   0,           0};
  w.dims = w.loads * w.vec;
  w.team = team_of(shape.at(2), w.dims);
  w.step = w.wg / w.team * w.tokens;
  return w;
}

// The walk's legality (MMA=0, STREAM=0), in the order constraint_violation
// checks it; the prefix checker decides each at the parameters it reads.
Violation walk_team_violation(const Walk& w, const Shape& shape, const vk::DeviceInfo&) {
  if (w.team < kMinTeam) {
    return attention::kTeam("LOADS*VEC = " + std::to_string(w.dims) + " leaves a team of " + std::to_string(w.team) +
                            " lanes for head_dim " + std::to_string(shape.at(2)) + " (at least " +
                            std::to_string(kMinTeam) + ")");
  }
  if (w.team > w.wg) {
    return attention::kTeam("a team of " + std::to_string(w.team) + " lanes exceeds WG_SIZE=" + std::to_string(w.wg));
  }
  return {};
}

// Unsplit, the template has no merge: MERGE=1 would build MERGE=0's code.
Violation walk_merge_violation(const Walk& w, const Shape&, const vk::DeviceInfo&) {
  if (w.chunk == 0 && w.merge != 0) {
    return legality::kDuplicate("MERGE=" + std::to_string(w.merge) + " needs splits to merge (KV_CHUNK > 0)");
  }
  return {};
}

Violation walk_splits_violation(const Walk& w, const Shape& shape, const vk::DeviceInfo&) {
  const std::uint32_t kv_len = shape.at(3);
  if (w.chunk > 0 && (kv_len + w.chunk - 1) / w.chunk > kMaxSplits) {
    return attention::kMaxSplits("KV_CHUNK=" + std::to_string(w.chunk) + " splits the cache of " +
                                 std::to_string(kv_len) + " into more than " + std::to_string(kMaxSplits) +
                                 " workgroups per head group");
  }
  return {};
}

// The shuffle butterfly and the reduce-scatter need shuffles and the team
// inside the smallest subgroup.
Violation walk_reduction_violation(const Walk& w, const Shape&, const vk::DeviceInfo& device) {
  const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
  const bool butterfly = device.subgroup_in_compute && device.has_subgroup_operation("shuffle") && w.team <= smallest;
  if (w.reduction != 1 && !butterfly) {
    return legality::kSubgroupSmallest("REDUCTION=" + std::to_string(w.reduction) +
                                       " needs subgroup shuffles in compute shaders and a team of " +
                                       std::to_string(w.team) + " within the device's smallest subgroup of " +
                                       std::to_string(smallest));
  }
  if (w.reduction == 2 && w.qh * w.tokens > w.team) {
    return attention::kScatter("REDUCTION=2 scatters QH*TOKENS = " + std::to_string(w.qh * w.tokens) +
                               " scores over a team of " + std::to_string(w.team) + " lanes (at most one per lane)");
  }
  return {};
}

using WalkCheck = Violation (*)(const Walk&, const Shape&, const vk::DeviceInfo&);
constexpr WalkCheck kWalkChecks[] = {walk_team_violation, walk_merge_violation, walk_splits_violation,
                                     walk_reduction_violation};
// What each reads, in kWalkChecks' order: the walk path's parameters.
const std::vector<std::string> kWalkCheckReads[] = {{"WG_SIZE", "LOADS", "VEC"},
                                                    {"KV_CHUNK", "MERGE"},
                                                    {"KV_CHUNK"},
                                                    {"REDUCTION", "LOADS", "VEC", "QH", "TOKENS"}};

// What the walk's template is sized by.
struct WalkSizes {
  std::uint32_t heads;    // TEAM_HEADS
  std::uint32_t floats;   // SH_FLOATS
  std::uint32_t q_vec4s;  // Q_SH (0: PREFETCH < 3)
};
WalkSizes walk_sizes(const Config& config) {
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto dims = static_cast<std::uint32_t>(config.at("LOADS") * config.at("VEC"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto tokens = static_cast<std::uint32_t>(config.at("TOKENS"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  // The team merge takes `heads` heads a pass: the most (a power of two
  // dividing QH) whose passes fit 4096 floats (16 KiB) or the two halves of
  // one head a pass (the old layout), whichever is larger; one pass (all QH
  // heads: one barrier instead of QH, the sums over the whole workgroup)
  // where they fit: QH=4 with WG_SIZE=128 and LOADS*VEC=8.
  const std::uint32_t budget = std::max(4096u, 2 * wg * dims);
  std::uint32_t heads = qh;
  while (heads > 1 && (heads < qh ? 2 : 1) * heads * wg * dims > budget) heads /= 2;
  // The shared float array: the team sums (REDUCTION=1), the team merge
  // (two halves where it takes several passes), the split merge (m and l of
  // every split, then a vec4 per invocation).
  std::uint32_t floats = (heads < qh ? 2 : 1) * heads * wg * dims;
  if (config.at("REDUCTION") == 1) floats = std::max(floats, wg * qh * tokens);
  if (chunk > 0) floats = std::max(floats, 2 * qh * kMaxSplits + 4 * wg);
  // MERGE=1 with split groups: an accumulator and an (m, l) vec4 per invocation.
  if (chunk > 0 && config.at("MERGE") == 1) floats = std::max(floats, 8 * wg);
  floats = (floats + 3) / 4 * 4;
  // PREFETCH=3: the queries of QH heads in shared memory, sized for the
  // largest head_dim so that the SPIR-V serves any shape.
  const std::uint32_t q_vec4s = config.at("PREFETCH") == 3 ? qh * kMaxHeadDim / 4 : 0;
  return {heads, floats, q_vec4s};
}

// The walk's launch without its template and defines: all that legality
// reads (plan_limits_violation), built for every config enumeration keeps.
ShaderPlan walk_launch(const Config& config, const WalkSizes& sizes) {
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  ShaderPlan plan;
  plan.local_size = {wg, 1, 1};
  // x: the splits of the cache (kv_len / KV_CHUNK, or one), y: the head groups.
  plan.dispatch = {chunk > 0 ? DispatchAxis{3, chunk} : DispatchAxis{}, DispatchAxis{0, qh}, DispatchAxis{}};
  plan.shared_memory_bytes = 4 * (sizes.floats + 2 * (wg / kMinTeam) * qh + 2 * qh) + 4 + 16 * sizes.q_vec4s;
  return plan;
}

}  // namespace

const std::vector<Check>& checks() {
  static const std::vector<Check> all = [] {
    std::vector<Check> out;
    for (std::size_t i = 0; i < std::size(kWalkChecks); ++i) {
      out.push_back({kWalkCheckReads[i], [check = kWalkChecks[i]](const Config& c, const Shape& s,
                                                                  const vk::DeviceInfo& d) {
                       return check(walk_of(c, s), s, d);
                     }});
    }
    return out;
  }();
  return all;
}

Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) {
  const auto w = walk_of(config, shape);
  for (const auto check : kWalkChecks) {
    if (auto problem = check(w, shape, device); !problem.empty()) return problem;
  }
  return plan_limits_violation(walk_launch(config, walk_sizes(config)), shape, 5, device);
}

// The walk's pruning rules, each true only for MMA=0, STREAM=0. Those for
// every device are costs that hold on any GPU; the NVIDIA ones are what the
// H200's tuning sessions (measurements/nvidia-h200/RESULTS.md) measured or kept the gate
// small with.
std::vector<PruningRule> pruning() {
  auto rule = [](std::string name, std::string reason, DeviceFilter measured_on,
                 std::function<bool(const Walk&, const Shape&)> prunes) {
    return PruningRule{std::move(name), std::move(reason), std::move(measured_on), [prunes](const Config& c, const Shape& s) {
                         return c.at("MMA") == 0 && c.at("STREAM") == 0 && prunes(walk_of(c, s), s);
                       }};
  };
  const DeviceFilter every{}, nvidia{kVendorNvidia, ""};
  return {
      rule("walk.chunk-covers-cache", "a chunk that covers the cache is one split: KV_CHUNK=0 walks the same without the merge",
           every, [](const Walk& w, const Shape& s) { return w.chunk > 0 && w.chunk >= s.at(3); }),
      rule("walk.chunk-two-steps",
           "a split shorter than two workgroup steps (WG_SIZE/team*TOKENS entries each) costs more to merge than to walk",
           every, [](const Walk& w, const Shape&) { return w.chunk > 0 && w.chunk < 2 * w.step; }),
      rule("walk.idle-lanes", "a step of twice the cache's entries or more leaves most lanes idle (beyond 128 invocations)",
           every, [](const Walk& w, const Shape& s) { return w.step >= 2 * s.at(3) && w.wg > 128; }),
      rule("walk.prefetch-steps",
           "PREFETCH=N with fewer than N+1 steps per workgroup has no later step to overlap its loads with",
           every, [](const Walk& w, const Shape& s) {
             return w.prefetch > 0 && (w.chunk > 0 ? w.chunk : s.at(3)) < (w.prefetch + 1) * w.step;
           }),
      rule("walk.wg512-unmeasured",
           "512 invocations were added for STREAM=1; the walk was tuned on the H200 with 128 and 256 (256 never won)",
           nvidia, [](const Walk& w, const Shape&) { return w.wg == 512; }),
      rule("walk.vec8-where-it-fits",
           "8-byte loads lost to 16-byte ones on the H200 (kv 512: 12.7 against 11.3 us, 4096: 44.0 against 38.3; "
           "measurements.csv): VEC=4 only where VEC=8 leaves a team under 4 lanes",
           nvidia, [](const Walk& w, const Shape& s) { return w.vec < 8 && team_of(s.at(2), 2 * w.dims) >= kMinTeam; }),
      rule("walk.registers",
           "past about 160 registers a lane the H200 spills (PREFETCH=1, LOADS=2, QH=4: 79 against 34 us): "
           "QH*LOADS*VEC <= 64, TOKENS*LOADS*VEC <= 32, 2*QH*LOADS*VEC + (1+PREFETCH)*TOKENS*LOADS*VEC <= 160 "
           "(QH*LOADS*VEC once with PREFETCH=3)",
           nvidia, [](const Walk& w, const Shape&) {
             // PREFETCH=3 keeps q in shared memory: only the accumulators take QH*LOADS*VEC.
             const auto words = (w.prefetch == 3 ? 1 : 2) * w.qh * w.dims + (1 + w.prefetch) * w.tokens * w.dims;
             return w.qh * w.dims > kMaxHeadFloats || w.tokens * w.dims > kMaxStepWords || words > kMaxLaneWords;
           }),
      rule("walk.register-file",
           "past 255 registers a lane (2*QH*LOADS*VEC + (1+PREFETCH)*TOKENS*LOADS*VEC) a lane's words exceed the "
           "register file any GPU gives one invocation (NVIDIA 255, AMD 256 VGPRs) and spill to memory",
           every, [](const Walk& w, const Shape&) {
             return (w.prefetch == 3 ? 1 : 2) * w.qh * w.dims + (1 + w.prefetch) * w.tokens * w.dims > kRegisterFile;
           }),
      // Two steps ahead pays only where one step ahead is already the largest
      // step the registers allow; a smaller step grows its bytes in flight
      // with more TOKENS instead (fewer registers, one pipeline stage).
      rule("walk.deep-prefetch-largest-step",
           "PREFETCH 2 and 3 only at the largest step the H200's registers allow (TOKENS*LOADS*VEC = 32): a smaller "
           "step holds more bytes in flight with more TOKENS at PREFETCH=1",
           nvidia, [](const Walk& w, const Shape&) { return w.prefetch >= 2 && w.tokens * w.dims < kMaxStepWords; }),
      rule("walk.widen-beside-winner",
           "WIDEN=1 never won on the H200 (slightly slower than WIDEN=0 at every default shape): kept beside the kv-8192 "
           "walk winner only (KV_CHUNK=256, WG_SIZE=128, PREFETCH=2, TOKENS*LOADS*VEC = 32)",
           nvidia, [](const Walk& w, const Shape&) {
             return w.widen == 1 && (w.chunk != 256 || w.prefetch != 2 || w.wg != 128 || w.tokens * w.dims < kMaxStepWords);
           }),
      rule("walk.wg256-winners-only",
           "256 invocations never won on the H200's walk: kept with the walk of its 128-invocation winners (LOADS=1, "
           "TOKENS=4, PREFETCH 1 or 2)",
           nvidia, [](const Walk& w, const Shape&) {
             return w.wg == 256 && (w.loads != 1 || w.tokens != 4 || w.prefetch == 0);
           }),
      rule("walk.merge0-beside-winners",
           "the phased merge (MERGE=0) is kept for comparison where the H200's earlier walk winners were (WG_SIZE=128, "
           "PREFETCH=1, WIDEN=0); the one-pass merge has fewer serial round trips",
           nvidia, [](const Walk& w, const Shape&) {
             return w.chunk > 0 && w.merge == 0 && (w.prefetch != 1 || w.wg != 128 || w.widen != 0);
           }),
      rule("walk.lean-with-merge1",
           "LEAN=1 goes with the one-pass merge: the phased merge is kept as the H200 measured it (LEAN=0), for "
           "comparison",
           nvidia, [](const Walk& w, const Shape&) { return w.lean == 1 && w.chunk > 0 && w.merge == 0; }),
      rule("walk.lean-unprefetched-tokens2",
           "unprefetched walks never won on the H200: LEAN=1 without prefetch is kept on the baseline's walk (TOKENS=2) "
           "only",
           nvidia, [](const Walk& w, const Shape&) { return w.lean == 1 && w.prefetch == 0 && w.tokens != 2; }),
      rule("walk.prefetch3-winners-walk",
           "three steps ahead is offered on the H200 winners' split walk (LEAN=1, WG_SIZE=128, WIDEN=0), where its "
           "bytes in flight per SM were short",
           nvidia, [](const Walk& w, const Shape&) {
             return w.prefetch == 3 && (w.lean != 1 || w.wg != 128 || w.widen != 0 || w.chunk == 0);
           }),
      rule("walk.lean0-beside-winners",
           "LEAN=0 (the previous order) is kept where the H200's earlier tuning found its winners (WG_SIZE=128, "
           "TOKENS=4, WIDEN=0), to measure the fixed-cost cuts against",
           nvidia, [](const Walk& w, const Shape&) { return w.lean == 0 && (w.wg != 128 || w.tokens != 4 || w.widen != 0); }),
      rule("walk.smem-sum-fallback",
           "where the shuffle butterfly runs (a team within 32 lanes) the shared-memory sum, three barriers a step, "
           "was never faster on the H200: REDUCTION=1 is the fallback",
           nvidia, [](const Walk& w, const Shape&) { return w.reduction == 1 && w.team <= kNvidiaSubgroup; }),
      rule("walk.reduce-scatter-winners-walk",
           "REDUCTION=2 is offered with the other fixed-cost cuts on the H200 winners' walk (LEAN=1, WG_SIZE=128, "
           "LOADS=1, VEC=8, WIDEN=0; split: prefetched, MERGE=1; unsplit: PREFETCH=0)",
           nvidia, [](const Walk& w, const Shape&) {
             return w.reduction == 2 && (w.lean != 1 || w.wg != 128 || w.loads != 1 || w.vec != 8 || w.widen != 0 ||
                                         (w.chunk > 0 && (w.prefetch == 0 || w.merge != 1)) ||
                                         (w.chunk == 0 && w.prefetch != 0));
           }),
  };
}

ShaderPlan plan(const Config& config, const Space& space, std::uint32_t max_heads) {
  const auto sizes = walk_sizes(config);
  ShaderPlan plan = walk_launch(config, sizes);
  plan.template_file = "attention_decode.comp";
  plan.defines = rowops::config_defines(config, space);
  plan.defines.emplace_back("MAX_HEADS", std::to_string(max_heads));
  plan.defines.emplace_back("MAX_SPLITS", std::to_string(kMaxSplits));
  plan.defines.emplace_back("TEAM_HEADS", std::to_string(sizes.heads));
  plan.defines.emplace_back("SH_FLOATS", std::to_string(sizes.floats));
  plan.defines.emplace_back("Q_SH", std::to_string(std::max(sizes.q_vec4s, 1u)));
  return plan;
}

}  // namespace vktune::kernels::attention_walk
