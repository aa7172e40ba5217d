#pragma once
// SPIR-V that came from elsewhere (an imported table), checked with
// SPIRV-Tools' validator before anything stores or runs it.
#include <cstdint>
#include <span>
#include <string>

namespace vktune::vk {

// Why `words` is not a valid SPIR-V module for Vulkan, in the validator's
// first message ("" when it is): the Vulkan 1.3 environment, which takes
// SPIR-V 1.0 to 1.6, what vktune compiles for any Vulkan 1.2 or 1.3 device.
std::string spirv_validation_problem(std::span<const std::uint32_t> words);

}  // namespace vktune::vk
