#pragma once
// The device limits a pipeline must respect, by rule id
// (common/violation.hpp): vk::check_pipeline_limits reports them, and the
// kernels' legality checks name them too. Vulkan-free.
#include "common/violation.hpp"

namespace vktune::vk::limits {

inline constexpr RuleId kWorkgroupSize{"workgroup.size"};  // a local size of 0 or above maxComputeWorkGroupSize
inline constexpr RuleId kWorkgroupInvocations{"workgroup.max_invocations"};
inline constexpr RuleId kSubgroupRequest{"subgroup.size_control"};  // requiring a subgroup size is not supported
inline constexpr RuleId kSubgroupRange{"subgroup.size_range"};      // a size the device cannot be asked for
inline constexpr RuleId kSubgroupsPerWorkgroup{"subgroup.max_per_workgroup"};
inline constexpr RuleId kFullSubgroups{"subgroup.full"};  // computeFullSubgroups, and local_size_x a multiple
inline constexpr RuleId kPushConstants{"push_constants.limit"};

}  // namespace vktune::vk::limits
