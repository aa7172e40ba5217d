#pragma once
// The CUDA-core walk of attention_decode (MMA=0, STREAM=0):
// templates/attention_decode.comp, a team of lanes per cache entry, TOKENS
// entries per team per step with their loads issued together (PREFETCH
// steps ahead), the teams and then the splits merged in shared memory. Its
// legality checks (each with the parameters it reads, so that enumeration
// can decide it at a prefix), its pruning rules, its launch and its plan;
// attention_decode.cpp owns the space, the problem, the reference and the
// choice among the paths.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::attention_walk {

// The most splits per head group the walk's scratch layout holds (its
// MAX_SPLITS; the tensor-core path shares the layout).
inline constexpr std::uint32_t kMaxSplits = 64;
// The largest head_dim any path takes (PREFETCH=3 sizes q's shared copy by it).
inline constexpr std::uint32_t kMaxHeadDim = 512;
// The fewest lanes per cache entry: the template's per-team arrays assume it.
inline constexpr std::uint32_t kMinTeam = 4;
// The most query and accumulator floats a lane holds per head group
// (QH*LOADS*VEC) before the H200 spills: the pruning rule walk.registers,
// and the baseline's choice of LOADS.
inline constexpr std::uint32_t kMaxHeadFloats = 64;

// Lanes per cache entry: the smallest power of two with team*dims >=
// head_dim (as the template computes it).
std::uint32_t team_of(std::uint32_t head_dim, std::uint32_t dims);

// One of the walk's legality checks: `violation` of a config of the walk at
// `shape`, and the parameters it reads.
struct Check {
  std::vector<std::string> reads;
  std::function<Violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device)> violation;
};
// The walk's checks in the order violation() applies them: a team of at
// least kMinTeam lanes within the workgroup, no merge without splits, splits
// within kMaxSplits, shuffles and the team within the smallest subgroup
// (and REDUCTION=2's one score per lane).
const std::vector<Check>& checks();

// A walk config at `shape` on `device`, legality only: checks(), then the
// launch within the device's limits (plan_limits_violation).
Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device);

// The walk's pruning rules (walk.*), each true only for MMA=0, STREAM=0.
std::vector<PruningRule> pruning();

// The plan of a walk variant: every parameter of `space` defined, with
// MAX_HEADS (`max_heads`), MAX_SPLITS (kMaxSplits) and the sizes the
// template's shared memory takes (TEAM_HEADS, SH_FLOATS, Q_SH).
ShaderPlan plan(const Config& config, const Space& space, std::uint32_t max_heads);

}  // namespace vktune::kernels::attention_walk
