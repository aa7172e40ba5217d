#include "kernels/attention_stream.hpp"

#include <utility>

#include "kernels/row_ops.hpp"

namespace vktune::kernels::attention_stream {
namespace {

// Registers per lane, in 32-bit words, for the queries and accumulators
// (2*QH*LOADS*8) and the K and V words in flight ((1 + PREFETCH) rounds of
// 2*ENTRIES*LOADS*4): past 160 the H200 spills (the walk's measured limit).
constexpr std::uint32_t kMaxLaneWords = 160;
// Scores a lane holds per round (QH*ENTRIES): each is a butterfly of
// log2(team) shuffles. 32 (ENTRIES=8 at QH=4) never won on the H200 (20.5
// against 17.5 us at kv 8192) and costs the gate a third of its variants.
constexpr std::uint32_t kMaxScores = 16;
// The rounds are unrolled: past 8 the code grows without more in flight.
constexpr std::uint32_t kMaxRounds = 8;
// The team merge's accumulators per pass (16 KiB).
constexpr std::uint32_t kMergeBytes = 16384;

// The other paths' parameters, at the one value STREAM=1 takes them.
constexpr std::pair<const char*, int> kPinned[] = {{"VEC", 8},   {"TOKENS", 2}, {"REDUCTION", 0}, {"MERGE", 1},
                                                   {"WIDEN", 0}, {"LEAN", 1},   {"MMA", 0},       {"STEP", 32}};

struct Layout {
  std::uint32_t team, teams, round, rounds, heads_per_pass;
};

Layout layout_of(const Config& config, const Shape& shape) {
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto loads = static_cast<std::uint32_t>(config.at("LOADS"));
  const auto entries = static_cast<std::uint32_t>(config.at("ENTRIES"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  Layout l{};
  l.team = std::max(1u, shape.at(2) / (8 * loads));
  l.teams = std::max(1u, wg / l.team);
  l.round = l.teams * entries;
  l.rounds = chunk / l.round;
  // Each head's accumulators take 16 bytes per lane-word pair: teams*head_dim*4.
  l.heads_per_pass = qh;
  while (l.heads_per_pass > 1 && l.heads_per_pass * l.teams * shape.at(2) * 4 > kMergeBytes) l.heads_per_pass /= 2;
  return l;
}

bool power_of_two(std::uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace

std::vector<Parameter> parameters() {
  return {
      {"STREAM", {0, 1},
       "1 = the streaming path: every K and V load of a round (ENTRIES entries per team) issued before any "
       "arithmetic, teams of head_dim/(8*LOADS) lanes as independent walkers, one merge at the end; 0 = the walk "
       "(MMA=0) or tensor cores (MMA=1)"},
      {"ENTRIES", {2, 4, 8, 16},
       "STREAM=1: cache entries per team per round, their 2*ENTRIES*LOADS 16-byte loads in flight together; "
       "pinned to 4 otherwise"},
  };
}

std::string violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) {
  for (const auto& [name, value] : kPinned) {
    if (config.at(name) != value) {
      return "STREAM=1 does not use " + std::string(name) + ": it stays at " + std::to_string(value);
    }
  }
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto loads = static_cast<std::uint32_t>(config.at("LOADS"));
  const auto entries = static_cast<std::uint32_t>(config.at("ENTRIES"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto prefetch = static_cast<std::uint32_t>(config.at("PREFETCH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  const std::uint32_t hd = shape.at(2), kv_len = shape.at(3);
  const auto l = layout_of(config, shape);
  if (hd % (8 * loads) != 0 || !power_of_two(l.team) || l.team < 2) {
    return "head_dim " + std::to_string(hd) + " with LOADS=" + std::to_string(loads) +
           " does not give a team of lanes that is a power of two of at least 2 (head_dim/(8*LOADS))";
  }
  if (l.team > wg) return "a team of " + std::to_string(l.team) + " lanes exceeds WG_SIZE=" + std::to_string(wg);
  const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
  if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle") || l.team > smallest) {
    return "STREAM=1 needs subgroup shuffles in compute shaders and a team of " + std::to_string(l.team) +
           " lanes within the device's smallest subgroup of " + std::to_string(smallest);
  }
  // Two loads per entry halve the team (for subgroups of 8 at head_dim 128)
  // at twice the query and accumulator registers; where one load's team
  // fits they never won on the H200 (18.97 against 17.54 us at kv 8192), so
  // they are offered only where it does not, and the gate stays small.
  if (loads > 1 && hd % (8 * (loads / 2)) == 0 && power_of_two(hd / (8 * (loads / 2))) &&
      hd / (8 * (loads / 2)) <= smallest) {
    return "LOADS=" + std::to_string(loads) + ": a team of " + std::to_string(hd / (8 * (loads / 2))) +
           " lanes with half the loads fits the smallest subgroup of " + std::to_string(smallest);
  }
  if (prefetch > 1) return "STREAM=1 takes PREFETCH 0 or 1 (one round of loads ahead)";
  if (qh * entries > kMaxScores) {
    return "QH*ENTRIES = " + std::to_string(qh * entries) + " scores per lane per round exceed " +
           std::to_string(kMaxScores);
  }
  if (const auto words = 2 * qh * loads * 8 + (1 + prefetch) * 8 * entries * loads; words > kMaxLaneWords) {
    return "about " + std::to_string(words) + " registers per lane for queries, accumulators and loads (more than " +
           std::to_string(kMaxLaneWords) + " spill)";
  }
  if (chunk == 0 || chunk % l.round != 0) {
    return "KV_CHUNK=" + std::to_string(chunk) + " is not a whole number of rounds of " + std::to_string(l.round) +
           " entries (WG_SIZE/team*ENTRIES)";
  }
  if (l.rounds > kMaxRounds) {
    return "KV_CHUNK=" + std::to_string(chunk) + " is " + std::to_string(l.rounds) + " rounds (at most " +
           std::to_string(kMaxRounds) + ", unrolled)";
  }
  if (prefetch == 1 && l.rounds < 2) return "PREFETCH=1 needs two rounds per workgroup (KV_CHUNK=" + std::to_string(chunk) + ")";
  // A round ahead pays only where the workgroups per SM are fewest: on the
  // H200 it won with 512 invocations (17.5 against 18.0 us at kv 8192) and
  // was within 1% of PREFETCH=0 with 128 and 256, so it is offered there
  // alone, and the gate stays small.
  if (prefetch == 1 && wg < 512) return "PREFETCH=1 is only paired with WG_SIZE=512";
  if ((kv_len + chunk - 1) / chunk > kMaxSplits) {
    return "KV_CHUNK=" + std::to_string(chunk) + " splits the cache of " + std::to_string(kv_len) + " into more than " +
           std::to_string(kMaxSplits) + " workgroups per head group";
  }
  // A chunk twice the cache is the same single split with idle lanes.
  if (chunk >= 2 * kv_len && chunk > l.round) {
    return "KV_CHUNK=" + std::to_string(chunk) + " is twice the cache of " + std::to_string(kv_len);
  }
  return {};
}

ShaderPlan plan(const Config& config, const Shape& shape, const Space& space, std::uint32_t max_heads) {
  ShaderPlan plan;
  plan.template_file = "attention_decode_stream.comp";
  plan.defines = rowops::config_defines(config, space);
  const auto l = layout_of(config, shape);
  plan.defines.emplace_back("HD", std::to_string(shape.at(2)));
  plan.defines.emplace_back("MAX_HEADS", std::to_string(max_heads));
  plan.defines.emplace_back("MAX_SPLITS", std::to_string(kMaxSplits));
  plan.defines.emplace_back("HP", std::to_string(l.heads_per_pass));
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto qh = static_cast<std::uint32_t>(config.at("QH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  plan.local_size = {wg, 1, 1};
  // x: the splits of the cache, y: the head groups.
  plan.dispatch = {DispatchAxis{3, chunk}, DispatchAxis{0, qh}, DispatchAxis{}};
  // team_m, team_l; sh (the larger of a merge pass and the split merge's
  // two vec4s per invocation); the last-split flag.
  const std::uint32_t sh_vec4s = std::max(l.teams * l.heads_per_pass * shape.at(2) / 4, 2 * wg);
  plan.shared_memory_bytes = 8 * l.teams * qh + 16 * sh_vec4s + 4;
  return plan;
}

}  // namespace vktune::kernels::attention_stream
