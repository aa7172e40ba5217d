// attention_decode: one query token per head against an fp16 KV cache, with
// grouped-query heads, as reference/ops.hpp `attention` defines it (scale
// 1/sqrt(head_dim); the query sees all kv_len cache entries). Shape
// (heads, kv_heads, head_dim, kv_len); q fp32 [heads][head_dim], K and V fp16
// [kv_len][kv_heads][head_dim], out fp32 [heads][head_dim]. One template,
// templates/attention_decode.comp.
//
// A workgroup takes the QH query heads of one KV head (grouped-query: QH =
// heads/kv_heads, at most 8), so each K and V byte is read once, not once per
// query head; QH is a parameter only because the template needs it at
// compile time (the registers of QH queries and accumulators), and the
// constraints pin it to the shape. A team of lanes takes a cache entry with
// 16-byte loads (LOADS per lane), TOKENS entries per step with their loads
// issued together (PREFETCH=1: a step ahead); see the template for the walk
// and the merges, for LEAN (the load order and the merges trimmed for the
// fixed cost of short walks), REDUCTION=2 (a reduce-scatter team sum) and
// PREFETCH=3 (q in shared memory, three steps of loads in flight).
//
// The KV split is the parameter KV_CHUNK, cache entries per workgroup
// (0 = all: one workgroup per head group). It is a chunk length rather than
// a split count because a dispatch rule divides a shape dim by a constant:
// the splits are ceil(kv_len / KV_CHUNK) workgroups along x, so a tuned
// chunk keeps its meaning at any cache length. The kernel interface has one
// dispatch per variant, so the splits are merged inside it (no second
// dispatch and its ~4 us launch-and-barrier floor): each workgroup writes
// per head a partial (max, sum, accumulator) to a scratch buffer and the
// last one of its head group to finish (an atomic counter per group, reset
// by that workgroup) merges them. The scratch buffer is sized for the most
// splits of any path (STREAM=1's 256; the walk and MMA=1 take at most 64),
// so one problem serves every variant.
//
// MMA=1 is a second template, templates/attention_decode_mma.comp: the
// products on tensor cores (kernels/attention_mma.hpp), with the same
// problem, scratch layout and split merge. STREAM=1 is a third,
// templates/attention_decode_stream.comp (kernels/attention_stream.hpp): a
// whole round of loads in flight per lane, teams without barriers, up to
// attention_stream::kMaxSplits splits (its records of a head are
// attention_stream::kMaxSplits apart; the other paths' kMaxSplits).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/attention_mma.hpp"
#include "kernels/attention_stream.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr std::uint32_t kMaxHeads = 256;  // counters in the scratch buffer (MAX_HEADS)
constexpr std::uint32_t kMaxSplits = 64;  // MAX_SPLITS
constexpr std::uint32_t kMaxHeadDim = 512;
constexpr std::uint32_t kMinTeam = 4;  // the template's per-team arrays assume it
// Registers per lane, in 32-bit words: the queries and accumulators of its QH
// heads (2*QH*LOADS*VEC) and the K and V words of a step (TOKENS*LOADS*VEC,
// twice that with PREFETCH). Past 160 the H200 spills: PREFETCH=1 with
// LOADS=2 (head_dim 128, four heads) ran at 79 us against 34 us without.
constexpr std::uint32_t kMaxHeadFloats = 64;  // QH*LOADS*VEC
constexpr std::uint32_t kMaxStepWords = 32;   // TOKENS*LOADS*VEC
constexpr std::uint32_t kMaxLaneWords = 160;

std::uint64_t scratch_bytes(const Shape& shape) {
  const std::uint64_t splits = std::max(kMaxSplits, attention_stream::kMaxSplits);
  return 4 * (kMaxHeads + std::uint64_t{shape.at(0)} * splits * (shape.at(2) + 4));
}

std::uint64_t kv_values(const Shape& shape) { return std::uint64_t{shape.at(3)} * shape.at(1) * shape.at(2); }

// Lanes per cache entry: the smallest power of two with team*dims >= head_dim
// (as the template computes it).
std::uint32_t team_of(std::uint32_t head_dim, std::uint32_t dims) {
  const std::uint32_t need = (head_dim + dims - 1) / dims;
  std::uint32_t team = 1;
  while (team < need) team *= 2;
  return team;
}

// The query heads a workgroup takes: all the heads per KV head
// (grouped-query) where they are at most 8, else the most of 8, 4 and 2
// that divides them.
std::uint32_t group_heads(const Shape& shape) {
  const std::uint32_t group = shape.at(0) / shape.at(1);
  std::uint32_t qh = 1;
  for (std::uint32_t c : {2u, 4u, 8u}) {
    if (group % c == 0) qh = c;
  }
  return qh;
}

// The one space; built once (enumerating it checks millions of configs).
Space make_space() {
  Space space{"decode", "attention_decode.comp", {}};
  space.parameters = {
      {"WG_SIZE", {128, 256, 512},
       "invocations per workgroup (64 was never the fastest on the H200; 512 only with STREAM=1)"},
      {"LOADS", {1, 2, 4},
       "K (and V) loads per lane per cache entry: a team of head_dim/(LOADS*VEC) lanes (rounded up to a power of "
       "two) takes an entry"},
      {"VEC", {4, 8}, "fp16 values per K/V load (uvec2, uvec4)"},
      {"QH", {1, 2, 4, 8},
       "query heads per workgroup, of one KV head: all of heads/kv_heads (at most 8), so K and V are read once; "
       "not tuned, the shape sets it"},
      {"TOKENS", {2, 4}, "cache entries per team per step, their loads issued together"},
      {"PREFETCH", {0, 1, 2, 3},
       "1 = issue the next step's loads before this step's arithmetic (software pipelining); 2 = two steps ahead "
       "(twice the bytes in flight, for few workgroups per SM); 3 = three steps ahead, q in shared memory read at "
       "each use (its registers hold the third step)"},
      {"KV_CHUNK", {0, 32, 64, 128, 256, 512, 1024, 2048},
       "cache entries per workgroup (ceil(kv_len/KV_CHUNK) workgroups per head group, merged through scratch "
       "memory and a per-group atomic counter); 0 = one workgroup per head group; 32: short caches over about "
       "one workgroup per SM (two steps of TOKENS=2)"},
      {"REDUCTION", {0, 1, 2},
       "a team's dot products: 0 = subgroup shuffle-xor butterfly, 1 = shared-memory sum, 2 = subgroup "
       "reduce-scatter (a score per lane, one exp each, the weights shuffled back; QH*TOKENS <= team)"},
      {"MERGE", {0, 1},
       "the split merge by the last workgroup (KV_CHUNK > 0): 0 = in phases ((m, l) of every split, the weights in "
       "shared memory, then the accumulators); 1 = one pass, each invocation loads (m, l) with its accumulator "
       "vec4, 16 splits a round, merged online (fewer serial load round trips)"},
      {"WIDEN", {0, 1},
       "fp16 to fp32: 0 = unpackHalf2x16 (a conversion per value); 1 = the bits moved into an fp32 unrebiased "
       "(integer operations; the 2^112 folded into q and the softmax weights; fp16 subnormals may flush)"},
      {"LEAN", {0, 1},
       "the fixed cost: 1 = first K/V loads before q's, no prefetches past the chunk, a one-barrier team merge "
       "(weights computed by the summing invocations); 0 = the previous order"},
  };
  for (auto& p : attention_mma::parameters()) space.parameters.push_back(std::move(p));
  for (auto& p : attention_stream::parameters()) space.parameters.push_back(std::move(p));
  return space;
}

class AttentionDecode final : public Kernel {
  const Space space_ = make_space();

 public:
  std::string name() const override { return "attention_decode"; }

  std::string description() const override {
    return "decode attention: one fp32 query token per head against an fp16 KV cache [kv_len][kv_heads][head_dim], "
           "grouped-query heads, scale 1/sqrt(head_dim), fp32 out; a workgroup takes the query heads of one KV head "
           "(K and V read once), KV length split across workgroups (KV_CHUNK entries each) merged in the same dispatch; "
           "the products on CUDA cores or, MMA=1, on tensor cores";
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

  std::vector<Space> build_spaces() const override { return {space_}; }

  std::size_t space_index(const Shape&) const override { return 0; }

  // 16-byte loads, one per lane per entry where that leaves a team of at most
  // 8 lanes (head_dim 64), else two (head_dim 128: 8 lanes, within any
  // subgroup) where the registers allow, all the heads of a KV head per
  // workgroup, 128 invocations, two entries per team per step, subgroup sums;
  // no prefetch; the cache split in chunks of about a sixteenth (at least 64
  // entries, merged in one pass): 8192 entries, 16 workgroups of 512 entries
  // per KV head; the fixed-cost cuts (LEAN=1).
  Config baseline(const Shape& shape) const override {
    const auto qh = static_cast<int>(group_heads(shape));
    const int loads = shape.at(2) > 64 && qh * 16 <= static_cast<int>(kMaxHeadFloats) ? 2 : 1;
    int chunk = 64;
    while (chunk < 2048 && chunk * 32 <= static_cast<int>(shape.at(3))) chunk *= 2;
    if (static_cast<std::uint32_t>(chunk) >= shape.at(3)) chunk = 0;
    return {{"WG_SIZE", 128}, {"LOADS", loads}, {"VEC", 8},        {"QH", qh},
            {"TOKENS", 2},    {"PREFETCH", 0},  {"KV_CHUNK", chunk}, {"REDUCTION", 0},
            {"MERGE", chunk > 0 ? 1 : 0}, {"WIDEN", 0}, {"LEAN", 1}, {"MMA", 0}, {"STEP", 32},
            {"STREAM", 0}, {"ENTRIES", attention_stream::kPinnedEntries}};
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, space_); !problem.empty()) return problem;
    if (const auto qh = static_cast<std::uint32_t>(config.at("QH")); qh != group_heads(shape)) {
      return "QH=" + std::to_string(qh) + ": a workgroup takes " + std::to_string(group_heads(shape)) + " of the " +
             std::to_string(shape[0] / shape[1]) + " query heads per KV head (fewer reread K and V)";
    }
    if (config.at("STREAM") == 1) {
      if (auto problem = attention_stream::violation(config, shape, device); !problem.empty()) return problem;
      return plan_limits_violation(plan(config, shape), shape, 5, device);
    }
    if (config.at("ENTRIES") != attention_stream::kPinnedEntries) {
      return "ENTRIES is only varied with STREAM=1";
    }
    if (config.at("WG_SIZE") > 256) return "WG_SIZE=" + std::to_string(config.at("WG_SIZE")) + " only with STREAM=1";
    if (config.at("MMA") == 1) {
      if (auto problem = attention_mma::violation(config, shape, device, kMaxSplits); !problem.empty()) return problem;
      return plan_limits_violation(plan(config, shape), shape, 5, device);
    }
    if (config.at("STEP") != 32) return "STEP is only varied with MMA=1";
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto loads = static_cast<std::uint32_t>(config.at("LOADS"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const auto qh = static_cast<std::uint32_t>(config.at("QH"));
    const auto tokens = static_cast<std::uint32_t>(config.at("TOKENS"));
    const auto prefetch = static_cast<std::uint32_t>(config.at("PREFETCH"));
    const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
    const auto merge = static_cast<std::uint32_t>(config.at("MERGE"));
    const auto widen = static_cast<std::uint32_t>(config.at("WIDEN"));
    const auto lean = static_cast<std::uint32_t>(config.at("LEAN"));
    const std::uint32_t head_dim = shape[2], kv_len = shape[3];
    const std::uint32_t dims = loads * vec, team = team_of(head_dim, dims);
    if (team < kMinTeam) {
      return "LOADS*VEC = " + std::to_string(dims) + " leaves a team of " + std::to_string(team) +
             " lanes for head_dim " + std::to_string(head_dim) + " (at least " + std::to_string(kMinTeam) + ")";
    }
    if (team > wg) return "a team of " + std::to_string(team) + " lanes exceeds WG_SIZE=" + std::to_string(wg);
    if (vec < 8 && team_of(head_dim, 2 * dims) >= kMinTeam) {
      return "VEC=" + std::to_string(vec) + ": loads twice as wide also fit head_dim " + std::to_string(head_dim) +
             " with LOADS=" + std::to_string(loads) + " (narrower loads are only varied where they do not)";
    }
    if (qh * dims > kMaxHeadFloats) {
      return "QH*LOADS*VEC = " + std::to_string(qh * dims) + ": the queries and accumulators would take more than " +
             std::to_string(2 * kMaxHeadFloats) + " registers";
    }
    if (tokens * dims > kMaxStepWords) {
      return "TOKENS*LOADS*VEC = " + std::to_string(tokens * dims) + " K and V words per step exceed " +
             std::to_string(kMaxStepWords) + " registers";
    }
    // PREFETCH=3 keeps q in shared memory: only the accumulators take QH*LOADS*VEC.
    if (const auto words = (prefetch == 3 ? 1 : 2) * qh * dims + (1 + prefetch) * tokens * dims;
        words > kMaxLaneWords) {
      return "about " + std::to_string(words) + " registers per lane for queries, accumulators and loads (more than " +
             std::to_string(kMaxLaneWords) + " spill)";
    }
    const std::uint32_t step = wg / team * tokens;  // entries per workgroup step
    if (chunk == 0 && merge != 0) return "MERGE=" + std::to_string(merge) + " needs splits to merge (KV_CHUNK > 0)";
    // Two steps ahead pays only where one step ahead is already the largest
    // step the registers allow; a smaller step grows its bytes in flight
    // with more TOKENS instead (fewer registers, one pipeline stage).
    if (prefetch >= 2 && tokens * dims < kMaxStepWords) {
      return "PREFETCH=" + std::to_string(prefetch) + " with TOKENS*LOADS*VEC = " + std::to_string(tokens * dims) +
             " below " + std::to_string(kMaxStepWords) + ": a larger step with PREFETCH=1 holds more bytes in flight";
    }
    // The integer widening is offered where the conversions compete with
    // the streaming (split, the largest step); it never won (slightly slower
    // than WIDEN=0 at every default shape), so it is kept only beside the
    // 8192 winner (KV_CHUNK=256, WG_SIZE=128, PREFETCH=2), which keeps the
    // gate small.
    if (widen == 1 && (chunk != 256 || prefetch != 2 || wg != 128 || tokens * dims < kMaxStepWords)) {
      return "WIDEN=1 is only paired with KV_CHUNK=256, WG_SIZE=128, PREFETCH=2 and TOKENS*LOADS*VEC = " +
             std::to_string(kMaxStepWords);
    }
    // 256 invocations never won on the H200: they are kept only with the
    // walk of the winners at 128 (LOADS=1, TOKENS=4, prefetched), to keep
    // the gate small.
    if (wg == 256 && (loads != 1 || tokens != 4 || prefetch == 0)) {
      return "WG_SIZE=256 is only paired with LOADS=1, TOKENS=4 and PREFETCH 1 or 2";
    }
    // The phased merge is kept, for comparison, where the previous tuning
    // found its winners (WG_SIZE=128, PREFETCH=1, WIDEN=0: the winners at
    // every default shape on the H200); everything else gets the one-pass merge,
    // which needs fewer serial round trips, and the gate stays small.
    if (chunk > 0 && merge == 0 && (prefetch != 1 || wg != 128 || widen != 0)) {
      return "MERGE=0 (the phased merge) is only kept with WG_SIZE=128, PREFETCH=1 and WIDEN=0";
    }
    // LEAN=1 goes with the one-pass merge (the phased one is kept as it was,
    // for comparison); LEAN=0, the previous order, is kept where the previous
    // tuning found its winners (WG_SIZE=128, TOKENS=4, WIDEN=0), to measure
    // the cuts against, and the gate stays small.
    if (lean == 1 && chunk > 0 && merge == 0) return "LEAN=1 is only paired with MERGE=1 (or KV_CHUNK=0)";
    // Without prefetch LEAN=1 is kept on the baseline's walk (TOKENS=2)
    // only: unprefetched walks never won, and the gate stays small.
    if (lean == 1 && prefetch == 0 && tokens != 2) return "LEAN=1 without prefetch is only paired with TOKENS=2";
    // Three steps ahead is offered on the split walk of the winners (128
    // invocations, the fixed-cost cuts, WIDEN=0), where the bytes in flight
    // per SM are short.
    if (prefetch == 3 && (lean != 1 || wg != 128 || widen != 0 || chunk == 0)) {
      return "PREFETCH=3 is only paired with LEAN=1, WG_SIZE=128, WIDEN=0 and KV_CHUNK > 0";
    }
    if (lean == 0 && (wg != 128 || tokens != 4 || widen != 0)) {
      return "LEAN=0 (the previous order) is only kept with WG_SIZE=128, TOKENS=4 and WIDEN=0";
    }
    if (chunk > 0) {
      if (chunk >= kv_len) return "KV_CHUNK=" + std::to_string(chunk) + " covers the cache: KV_CHUNK=0 without merging";
      if ((kv_len + chunk - 1) / chunk > kMaxSplits) {
        return "KV_CHUNK=" + std::to_string(chunk) + " splits the cache of " + std::to_string(kv_len) +
               " into more than " + std::to_string(kMaxSplits) + " workgroups per head group";
      }
      if (chunk < 2 * step) {
        return "KV_CHUNK=" + std::to_string(chunk) + " is less than two steps of " + std::to_string(step) +
               " entries (WG_SIZE/team*TOKENS): the merge would cost more than the walk";
      }
    }
    if (step >= 2 * kv_len && wg > 128) {
      return std::to_string(step) + " entries per step are twice the " + std::to_string(kv_len) + " cache entries";
    }
    if (prefetch > 0 && (chunk > 0 ? chunk : kv_len) < (prefetch + 1) * step) {
      return "PREFETCH=" + std::to_string(prefetch) + " needs " + std::to_string(prefetch + 1) + " steps of " +
             std::to_string(step) + " entries per workgroup";
    }
    // The shuffle butterfly needs shuffles and the team inside the smallest
    // subgroup; where it runs, the shared-memory sum (three barriers a step)
    // is never faster, so it is only the fallback.
    const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
    const bool butterfly = device.subgroup_in_compute && device.has_subgroup_operation("shuffle") && team <= smallest;
    if (config.at("REDUCTION") == 0 && !butterfly) {
      return "REDUCTION=0 needs subgroup shuffles in compute shaders and a team of " + std::to_string(team) +
             " within the device's smallest subgroup of " + std::to_string(smallest);
    }
    if (config.at("REDUCTION") == 2) {
      if (!butterfly) {
        return "REDUCTION=2 needs subgroup shuffles in compute shaders and a team of " + std::to_string(team) +
               " within the device's smallest subgroup of " + std::to_string(smallest);
      }
      if (qh * tokens > team) {
        return "REDUCTION=2 scatters QH*TOKENS = " + std::to_string(qh * tokens) + " scores over a team of " +
               std::to_string(team) + " lanes (at most one per lane)";
      }
      // Offered with the other fixed-cost cuts on the winners' walk (128
      // invocations, 16-byte loads one per lane, WIDEN=0; split: prefetched,
      // the one-pass merge), which keeps the gate small; unsplit without
      // prefetch too, where a short cache at head_dim 64 (a team of 8 lanes)
      // puts it in the CPU gate.
      if (lean != 1 || wg != 128 || loads != 1 || vec != 8 || widen != 0 ||
          (chunk > 0 && (prefetch == 0 || merge != 1)) || (chunk == 0 && prefetch != 0)) {
        return "REDUCTION=2 is only paired with LEAN=1, WG_SIZE=128, LOADS=1, VEC=8, WIDEN=0 and, split, with "
               "PREFETCH 1 to 3 and MERGE=1, unsplit with PREFETCH=0";
      }
    }
    if (config.at("REDUCTION") == 1 && butterfly) {
      return "REDUCTION=1 (shared-memory sum) is only the fallback where REDUCTION=0 cannot run a team of " +
             std::to_string(team);
    }
    return plan_limits_violation(plan(config, shape), shape, 5, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    if (config.at("STREAM") == 1) return attention_stream::plan(config, shape, space_, kMaxHeads);
    if (config.at("MMA") == 1) return attention_mma::plan(config, shape, space_, kMaxHeads, kMaxSplits);
    ShaderPlan plan;
    plan.template_file = "attention_decode.comp";
    plan.defines = rowops::config_defines(config, space_);
    plan.defines.emplace_back("MAX_HEADS", std::to_string(kMaxHeads));
    plan.defines.emplace_back("MAX_SPLITS", std::to_string(kMaxSplits));
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
    plan.defines.emplace_back("TEAM_HEADS", std::to_string(heads));
    // The shared float array: the team sums (REDUCTION=1), the team merge
    // (two halves where it takes several passes), the split merge (m and l of
    // every split, then a vec4 per invocation).
    std::uint32_t floats = (heads < qh ? 2 : 1) * heads * wg * dims;
    if (config.at("REDUCTION") == 1) floats = std::max(floats, wg * qh * tokens);
    if (chunk > 0) floats = std::max(floats, 2 * qh * kMaxSplits + 4 * wg);
    // MERGE=1 with split groups: an accumulator and an (m, l) vec4 per invocation.
    if (chunk > 0 && config.at("MERGE") == 1) floats = std::max(floats, 8 * wg);
    floats = (floats + 3) / 4 * 4;
    plan.defines.emplace_back("SH_FLOATS", std::to_string(floats));
    // PREFETCH=3: the queries of QH heads in shared memory, sized for the
    // largest head_dim so that the SPIR-V serves any shape.
    const std::uint32_t q_vec4s = config.at("PREFETCH") == 3 ? qh * kMaxHeadDim / 4 : 0;
    plan.defines.emplace_back("Q_SH", std::to_string(std::max(q_vec4s, 1u)));
    plan.local_size = {wg, 1, 1};
    // x: the splits of the cache (kv_len / KV_CHUNK, or one), y: the head groups.
    plan.dispatch = {chunk > 0 ? DispatchAxis{3, chunk} : DispatchAxis{}, DispatchAxis{0, qh}, DispatchAxis{}};
    plan.shared_memory_bytes = 4 * (floats + 2 * (wg / kMinTeam) * qh + 2 * qh) + 4 + 16 * q_vec4s;
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
  // team an online softmax over KV_CHUNK/teams entries, merged by sums over
  // teams and splits. The output is an average of values of either sign, so
  // it is ~1/sqrt(kv_len) of |v| while the errors scale with the sum of
  // |p v|: measured 2e-7 to 4e-7 relative L2 at every default shape on
  // lavapipe. A wrong KV head or scale moves it by O(1), a dropped or
  // doubled entry by ~1e-2 relative at 8192 entries. MMA=1 keeps the same
  // tolerance: q and the weights enter the fp16 products as two terms each
  // (about 22 bits), measured 2e-7 to 9e-7 on the H200 at every default shape.
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
