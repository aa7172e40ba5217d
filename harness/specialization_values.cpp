#include "harness/specialization_values.hpp"

#include <bit>

namespace vktune::vk {

namespace {

std::string constant_label(const ShaderConstant& constant) {
  return "specialization constant " + std::to_string(constant.constant_id) +
         (constant.name.empty() ? "" : " ('" + constant.name + "')");
}

}  // namespace

SpecializationWord specialization_word(const ShaderConstant& constant, std::int64_t value) {
  SpecializationWord out;
  const auto cannot_hold = [&](const std::string& type) {
    out.problem = constant_label(constant) + " is " + type + " in the shader and cannot hold " + std::to_string(value);
  };
  if (constant.type == "i32") {
    if (value < INT32_MIN || value > INT32_MAX) cannot_hold("an int");
    out.word = static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
  } else if (constant.type == "u32") {
    if (value < 0 || value > UINT32_MAX) cannot_hold("a uint");
    out.word = static_cast<std::uint32_t>(value);
  } else if (constant.type == "bool") {
    if (value != 0 && value != 1) cannot_hold("a bool (0 or 1)");
    out.word = value != 0 ? 1u : 0u;  // VK_TRUE, VK_FALSE
  } else if (constant.type == "f32") {
    // Integers past 2^24 round to the nearest float, as a float literal would.
    out.word = std::bit_cast<std::uint32_t>(static_cast<float>(value));
  } else {
    out.problem = constant_label(constant) + " is " + constant.type +
                  " in the shader: a spec parameter sets only 32-bit int, uint and float constants and bools";
  }
  return out;
}

std::string typed_specialization(const ShaderInterface& interface,
                                 std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants) {
  for (auto& [id, value] : constants) {
    for (const auto& constant : interface.constants) {
      if (constant.constant_id != id) continue;
      // The plan holds the parameter's int as 32 bits; read them back signed.
      const auto typed = specialization_word(constant, static_cast<std::int32_t>(value));
      if (!typed.problem.empty()) return typed.problem;
      value = typed.word;
    }
  }
  return {};
}

}  // namespace vktune::vk
