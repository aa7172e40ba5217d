#include "kernels/attention_stream.hpp"

#include <functional>
#include <utility>

#include "kernels/attention_rules.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels::attention_stream {
namespace {

// Registers per lane, in 32-bit words, for the queries and accumulators
// (2*QH*LOADS*8) and the K and V words in flight ((1 + PREFETCH) rounds of
// 2*ENTRIES*LOADS*4): past 160 the H200 spills (the walk's measured limit).
constexpr std::uint32_t kMaxLaneWords = 160;
// 32-bit registers one invocation may hold on any GPU: past it, words spill.
constexpr std::uint32_t kRegisterFile = 255;
// Scores a lane holds per round (QH*ENTRIES): each is a butterfly of
// log2(team) shuffles. 32 (ENTRIES=8 at QH=4) never won on the H200 (20.5
// against 17.5 us at kv 8192) and costs the gate a third of its variants.
constexpr std::uint32_t kMaxScores = 16;
// The rounds are unrolled: past 8 the code grows without more in flight.
constexpr std::uint32_t kMaxRounds = 8;
// The team merge's accumulators per pass (16 KiB).
constexpr std::uint32_t kMergeBytes = 16384;
// The subgroup of every NVIDIA GPU, for the rules measured on the H200.
constexpr std::uint32_t kNvidiaSubgroup = 32;

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

std::vector<Parameter> merge_stage_parameters() {
  return {
      {"MERGE_STAGE", {0, 1},
       "STREAM=1 with splits: 0 = the last workgroup of a head group to finish merges its splits (an atomic counter "
       "per group, in the same dispatch); 1 = a second dispatch merges them, one workgroup per head (no counter, a "
       "barrier between the dispatches); 0 on the other paths"},
      {"MERGE_WG", {0, 64, 128, 256},
       "MERGE_STAGE=1: invocations per workgroup of the merge stage (one head each, the splits shared among "
       "MERGE_WG/(head_dim/4) groups); 0 otherwise"},
  };
}

Config merged_inside() { return {{"MERGE_STAGE", 0}, {"MERGE_WG", 0}}; }

std::vector<Parameter> merge_stage_varied() { return {{"MERGE_WG", {64, 128, 256}, ""}}; }

Config merge_stage_pinned() {
  auto config = pinned();
  config["MERGE_STAGE"] = 1;
  return config;
}

std::vector<Parameter> varied() {
  return {{"WG_SIZE", {128, 256, 512}, ""},
          {"LOADS", {1, 2, 4}, ""},
          {"PREFETCH", {0, 1}, ""},
          {"KV_CHUNK", {32, 64, 128, 256, 512, 1024, 2048}, ""},
          {"ENTRIES", {2, 4, 8, 16}, ""}};
}

Config pinned() {
  Config config{{"STREAM", 1}};
  for (const auto& [name, value] : kPinned) config[name] = value;
  return config;
}

Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) {
  for (const auto& [name, value] : kPinned) {
    if (config.at(name) != value) {
      return legality::kUnreadParameter("STREAM=1 does not use " + std::string(name) + ": it stays at " +
                                        std::to_string(value));
    }
  }
  const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
  const auto loads = static_cast<std::uint32_t>(config.at("LOADS"));
  const auto prefetch = static_cast<std::uint32_t>(config.at("PREFETCH"));
  const auto chunk = static_cast<std::uint32_t>(config.at("KV_CHUNK"));
  const std::uint32_t hd = shape.at(2), kv_len = shape.at(3);
  const auto l = layout_of(config, shape);
  if (hd % (8 * loads) != 0 || !power_of_two(l.team) || l.team < 2) {
    return attention::kTeam("head_dim " + std::to_string(hd) + " with LOADS=" + std::to_string(loads) +
                            " does not give a team of lanes that is a power of two of at least 2 (head_dim/(8*LOADS))");
  }
  if (l.team > wg) {
    return attention::kTeam("a team of " + std::to_string(l.team) + " lanes exceeds WG_SIZE=" + std::to_string(wg));
  }
  const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
  if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle") || l.team > smallest) {
    return legality::kSubgroupSmallest("STREAM=1 needs subgroup shuffles in compute shaders and a team of " +
                                       std::to_string(l.team) + " lanes within the device's smallest subgroup of " +
                                       std::to_string(smallest));
  }
  if (prefetch > 1) return legality::kPathValue("STREAM=1 takes PREFETCH 0 or 1 (one round of loads ahead)");
  if (chunk == 0 || chunk % l.round != 0) {
    return attention::kChunk("KV_CHUNK=" + std::to_string(chunk) + " is not a whole number of rounds of " +
                             std::to_string(l.round) + " entries (WG_SIZE/team*ENTRIES)");
  }
  // With one round there is nothing to load ahead: the same code as PREFETCH=0.
  if (prefetch == 1 && l.rounds < 2) {
    return legality::kDuplicate("PREFETCH=1 needs two rounds per workgroup (KV_CHUNK=" + std::to_string(chunk) + ")");
  }
  const std::uint32_t splits = (kv_len + chunk - 1) / chunk;
  if (splits > kMaxSplits) {
    return attention::kMaxSplits("KV_CHUNK=" + std::to_string(chunk) + " splits the cache of " +
                                 std::to_string(kv_len) + " into more than " + std::to_string(kMaxSplits) +
                                 " workgroups per head group");
  }
  const auto merge_stage = config.at("MERGE_STAGE"), merge_wg = config.at("MERGE_WG");
  if (merge_stage == 0 && merge_wg != 0) return legality::kUnreadParameter("MERGE_WG is only varied with MERGE_STAGE=1");
  if (merge_stage == 1) {
    if (merge_wg == 0) return legality::kPathValue("MERGE_STAGE=1 needs MERGE_WG invocations for its merge stage");
    // One split is written out by the streaming pass: a merge stage would do nothing.
    if (splits < 2) return legality::kDuplicate("MERGE_STAGE=1 needs splits to merge (kv_len > KV_CHUNK)");
  }
  return {};
}

std::vector<PruningRule> pruning() {
  auto rule = [](std::string name, std::string reason, DeviceFilter measured_on,
                 std::function<bool(const Config&, const Shape&, const Layout&)> prunes) {
    return PruningRule{std::move(name), std::move(reason), std::move(measured_on), [prunes](const Config& c, const Shape& s) {
                         return c.at("STREAM") == 1 && prunes(c, s, layout_of(c, s));
                       }};
  };
  const DeviceFilter nvidia{kVendorNvidia, ""};
  auto u = [](const Config& c, const char* name) { return static_cast<std::uint32_t>(c.at(name)); };
  return {
      rule("stream.chunk-past-cache",
           "a chunk of twice the cache or more (and more than a round) is the single split a shorter chunk makes, "
           "with idle lanes",
           DeviceFilter{}, [u](const Config& c, const Shape& s, const Layout& l) {
             return u(c, "KV_CHUNK") >= 2 * s.at(3) && u(c, "KV_CHUNK") > l.round;
           }),
      rule("stream.rounds-8", "the rounds are unrolled: past 8 a chunk grows the code without putting more loads in flight",
           DeviceFilter{}, [](const Config&, const Shape&, const Layout& l) { return l.rounds > kMaxRounds; }),
      // Two loads per entry halve the team (for subgroups of 8 at head_dim
      // 128) at twice the query and accumulator registers.
      rule("stream.loads-where-needed",
           "two or four loads per entry never won on the H200 where half the loads' team fits its 32-lane subgroups "
           "(18.97 against 17.54 us at kv 8192)",
           nvidia, [u](const Config& c, const Shape& s, const Layout&) {
             const std::uint32_t loads = u(c, "LOADS"), hd = s.at(2);
             if (loads < 2 || hd % (8 * (loads / 2)) != 0) return false;
             const std::uint32_t half_team = hd / (8 * (loads / 2));
             return power_of_two(half_team) && half_team <= kNvidiaSubgroup;
           }),
      rule("stream.scores-16",
           "more than 16 scores a lane per round (QH*ENTRIES) never won on the H200 (32: 20.5 against 17.5 us at kv "
           "8192)",
           nvidia, [u](const Config& c, const Shape&, const Layout&) { return u(c, "QH") * u(c, "ENTRIES") > kMaxScores; }),
      rule("stream.registers",
           "past about 160 registers a lane (2*QH*LOADS*8 + (1+PREFETCH)*8*ENTRIES*LOADS) the H200 spills",
           nvidia, [u](const Config& c, const Shape&, const Layout&) {
             const std::uint32_t loads = u(c, "LOADS");
             return 2 * u(c, "QH") * loads * 8 + (1 + u(c, "PREFETCH")) * 8 * u(c, "ENTRIES") * loads > kMaxLaneWords;
           }),
      rule("stream.register-file",
           "past 255 registers a lane (2*QH*LOADS*8 + (1+PREFETCH)*8*ENTRIES*LOADS) a lane's words exceed the "
           "register file any GPU gives one invocation (NVIDIA 255, AMD 256 VGPRs) and spill to memory",
           DeviceFilter{}, [u](const Config& c, const Shape&, const Layout&) {
             const std::uint32_t loads = u(c, "LOADS");
             return 2 * u(c, "QH") * loads * 8 + (1 + u(c, "PREFETCH")) * 8 * u(c, "ENTRIES") * loads > kRegisterFile;
           }),
      // A round ahead pays only where the workgroups per SM are fewest.
      rule("stream.prefetch-wg512",
           "a round ahead (PREFETCH=1) won on the H200 with 512 invocations (17.5 against 18.0 us at kv 8192) and was "
           "within 1% of PREFETCH=0 with 128 and 256",
           nvidia, [u](const Config& c, const Shape&, const Layout&) { return u(c, "PREFETCH") == 1 && u(c, "WG_SIZE") < 512; }),
  };
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

ShaderPlan merge_plan(const Config& config, const Shape& shape, std::uint32_t max_heads) {
  ShaderPlan plan;
  plan.template_file = "attention_merge.comp";
  const auto wg = static_cast<std::uint32_t>(config.at("MERGE_WG"));
  plan.defines = {{"MERGE_WG", std::to_string(wg)},
                  {"KV_CHUNK", std::to_string(config.at("KV_CHUNK"))},
                  {"HD", std::to_string(shape.at(2))},
                  {"MAX_HEADS", std::to_string(max_heads)},
                  {"MAX_SPLITS", std::to_string(kMaxSplits)}};
  plan.local_size = {wg, 1, 1};
  plan.dispatch = {DispatchAxis{0, 1}, DispatchAxis{}, DispatchAxis{}};  // a workgroup per head
  plan.shared_memory_bytes = 16 * 2 * wg + 4;                            // the R groups' vec4s; the election flag
  return plan;
}

}  // namespace vktune::kernels::attention_stream
