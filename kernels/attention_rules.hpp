#pragma once
// The attention kernels' own legality rules (attention_decode's walk,
// streaming and tensor-core paths; attention_prefill), by id;
// kernels/legality.hpp has the ones the kernel families share.
#include "kernels/legality.hpp"

namespace vktune::kernels::attention {

// The team of lanes that shares an entry's head_dim: its size (a power of
// two, at least the path's minimum, head_dim in whole loads or pairs over
// it) and at most a workgroup.
inline constexpr RuleId kTeam{"attention.team"};
// KV_CHUNK splits the cache into no more workgroups per head group than the
// merge takes.
inline constexpr RuleId kMaxSplits{"attention.max_splits"};
// KV_CHUNK a whole number of rounds (the streaming path) or steps (the
// tensor-core path).
inline constexpr RuleId kChunk{"attention.chunk"};
// REDUCTION=2 scatters at most one score per lane.
inline constexpr RuleId kScatter{"attention.scatter"};
// The tensor-core paths' split of head_dim tiles, query heads and loads over
// their subgroups and invocations.
inline constexpr RuleId kSubgroupSplit{"attention.subgroup_split"};

}  // namespace vktune::kernels::attention
