#pragma once
// The legality rules several kernel families share, by id
// (common/violation.hpp): a plan's device limits beyond a pipeline's (those
// are vk::limits, harness/pipeline.hpp), a config's parameters and path,
// subgroup-size requests and the device features the templates need. A
// family's own rules are declared in its file, in a namespace of its own,
// with ids named after it ("matvec.pass_width", "attention.max_splits").
#include "common/violation.hpp"

namespace vktune::kernels::legality {

// Device limits of a plan (plan_limits_violation).
inline constexpr RuleId kSharedMemory{"shared_memory.limit"};
inline constexpr RuleId kWorkgroupCount{"workgroup.max_count"};

// The config against its space (support::parameter_violation).
inline constexpr RuleId kParameterMissing{"parameter.missing"};
inline constexpr RuleId kParameterValue{"parameter.value"};  // not one of the parameter's candidates
inline constexpr RuleId kParameterOutside{"parameter.outside_space"};

// The config against its path: a parameter the path does not read is off the
// value it is pinned at (the config would build another config's code), a
// value the path does not take, or no path holding the config.
inline constexpr RuleId kUnreadParameter{"path.unread_parameter"};
inline constexpr RuleId kPathValue{"path.value"};
inline constexpr RuleId kNoPath{"path.none"};
// A value the shape sets rather than the search (attention_decode's QH).
inline constexpr RuleId kShapeValue{"shape.value"};
// A config that builds the code another config builds (a loop that never
// runs twice, a merge with nothing to merge, the device's only subgroup size).
inline constexpr RuleId kDuplicate{"variant.duplicate"};

// How the work is laid out: a workgroup (or team, or tile) at least twice as
// wide as its work, leaving over half its lanes idle; a parameter that must
// divide a dimension of the shape; a loop past its most steps; more registers
// per invocation than the templates budget.
inline constexpr RuleId kIdleLanes{"workgroup.idle_lanes"};
inline constexpr RuleId kDivides{"shape.divides"};
inline constexpr RuleId kSteps{"loop.max_steps"};
inline constexpr RuleId kRegisters{"registers.per_invocation"};
// The scalar tiled GEMMs' workgroup, (TILE_M/THREAD_M)*(TILE_N/THREAD_N)
// invocations, within the range their template serves.
inline constexpr RuleId kTiledInvocations{"tiled.invocations"};
// The scalar tiled GEMMs' invocations along N, TILE_N/THREAD_N, within one
// row of the template's subgroup layout (LANES_N, 32 unless a kernel varies it).
inline constexpr RuleId kTiledLanes{"tiled.lanes_width"};

// Subgroups (the pipeline's own limits are vk::limits).
inline constexpr RuleId kSubgroupDivides{"subgroup.divides_workgroup"};  // WG_SIZE a multiple of SUBGROUP_SIZE
// Invocations that reduce or synchronise through subgroup operations must
// lie in the smallest subgroup the variant may get.
inline constexpr RuleId kSubgroupSmallest{"subgroup.smallest"};
inline constexpr RuleId kSubgroup32{"subgroup.exactly_32"};  // the tensor-core paths' warps

// Device features the templates need.
inline constexpr RuleId kSubgroupOperations{"device.subgroup_operations"};
inline constexpr RuleId kFloat16{"device.float16"};
inline constexpr RuleId kStorage16{"device.storage_16bit"};
inline constexpr RuleId kCooperativeMatrix{"device.cooperative_matrix"};
inline constexpr RuleId kIntegerDot{"device.integer_dot_product"};

}  // namespace vktune::kernels::legality
