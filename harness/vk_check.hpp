#pragma once
// Turning VkResult into vktune::Error with a message that names the call.
#include <volk.h>

#include <string>
#include <string_view>

namespace vktune::vk {

std::string_view result_name(VkResult result);

// The result's name and its number, e.g. "VK_ERROR_UNKNOWN (-13)": drivers
// return codes newer than this table, and the number still names them.
std::string describe(VkResult result);

// Throws Error (kind device_lost, timeout or vulkan) unless result is
// VK_SUCCESS; `what` names the operation, e.g. "vkCreateBuffer".
void check(VkResult result, std::string_view what);

}  // namespace vktune::vk
