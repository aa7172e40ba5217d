#pragma once
// A spec's parameters are integers; a shader's specialization constant may be
// an int, a uint, a float or a bool. VkSpecializationInfo copies bytes, so a
// float constant handed an integer's bits reads 2 as 2.8e-45: each value is
// turned into the word of the type the module declares (read by reflection,
// shader_interface.hpp), and a value that type cannot hold is refused rather
// than wrapped (-1 into a uint, 5 into a bool).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/shader_interface.hpp"

namespace vktune::vk {

// The 32-bit word `constant` takes for the parameter value `value`: an i32 as
// its two's complement, a u32 as is (refused below 0), a bool as 0 or 1
// (refused otherwise), an f32 as the bits of the nearest float. `problem` is
// one line where the type cannot hold the value or is none of those four.
struct SpecializationWord {
  std::uint32_t word = 0;
  std::string problem;
};
SpecializationWord specialization_word(const ShaderConstant& constant, std::int64_t value);

// `constants` (constant_id, value as a 32-bit two's complement integer) turned
// into the words of the types `interface` declares, in place; an id the module
// does not declare is left as it is (Vulkan ignores it). "" or the first
// problem.
std::string typed_specialization(const ShaderInterface& interface,
                                 std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants);

}  // namespace vktune::vk
