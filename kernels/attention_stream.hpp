#pragma once
// The streaming path of attention_decode (STREAM=1):
// templates/attention_decode_stream.comp issues every K and V load of a
// round (ENTRIES cache entries per team of lanes) before any arithmetic, so
// a workgroup has a whole round in flight rather than a walk's step, and its
// teams run without barriers until the final merge. Its parameters, the rules
// a variant must meet and its plan; attention_decode.cpp owns the problem,
// the reference and the other paths.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::attention_stream {

// The most splits per head group the streaming path's scratch layout holds
// (the problem's scratch buffer is sized for it).
inline constexpr std::uint32_t kMaxSplits = 256;

// STREAM and ENTRIES, appended to attention_decode's space.
std::vector<Parameter> parameters();

// ENTRIES' value where STREAM=0 (the other paths do not vary it).
inline constexpr int kPinnedEntries = 4;

// MERGE_STAGE and MERGE_WG, appended to attention_decode's space after
// parameters(): the split merge in the streaming dispatch (MERGE_STAGE=0) or
// as a second dispatch (1) of MERGE_WG invocations per head.
std::vector<Parameter> merge_stage_parameters();
// MERGE_STAGE=0, MERGE_WG=0: pinned on every path but stream-merge-stage.
Config merged_inside();
// The stream-merge-stage path: varied() and MERGE_WG, with MERGE_STAGE=1.
std::vector<Parameter> merge_stage_varied();
Config merge_stage_pinned();

// The streaming path ("stream"): the parameters its template reads
// (WG_SIZE, LOADS, ENTRIES, PREFETCH, KV_CHUNK) with the values it can take
// there (PREFETCH 0 or 1, KV_CHUNK > 0; help left to the space's), and every
// other parameter but QH pinned, with STREAM=1.
std::vector<Parameter> varied();
Config pinned();

// STREAM=1 for `shape` on `device`, legality only: the other paths'
// parameters pinned, a team of lanes that is a power of two within the
// smallest subgroup, a chunk of whole rounds, splits within kMaxSplits, and
// no duplicate of another variant's code. Device limits are the caller's
// (plan_limits_violation).
Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device);

// The path's pruning rules (stream.*), each true only for STREAM=1.
std::vector<PruningRule> pruning();

// The plan of a STREAM=1 variant: every parameter of `space` defined, HD (the
// shape's head_dim), MAX_HEADS, MAX_SPLITS (kMaxSplits) and HP (heads per
// pass of the team merge).
ShaderPlan plan(const Config& config, const Shape& shape, const Space& space, std::uint32_t max_heads);

// The second stage of a MERGE_STAGE=1 variant: templates/attention_merge.comp,
// one workgroup of MERGE_WG invocations per head merging its splits' records.
ShaderPlan merge_plan(const Config& config, const Shape& shape, std::uint32_t max_heads);

}  // namespace vktune::kernels::attention_stream
