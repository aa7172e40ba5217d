#pragma once
// Turning VkResult into vktune::Error with a message that names the call.
#include <volk.h>

#include <string>
#include <string_view>

namespace vktune::vk {

std::string_view result_name(VkResult result);

// Throws Error (kind device_lost, timeout or vulkan) unless result is
// VK_SUCCESS; `what` names the operation, e.g. "vkCreateBuffer".
void check(VkResult result, std::string_view what);

}  // namespace vktune::vk
