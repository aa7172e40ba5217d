#include "harness/spirv_validation.hpp"

#include <spirv-tools/libspirv.hpp>

namespace vktune::vk {

std::string spirv_validation_problem(std::span<const std::uint32_t> words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_3);
  std::string first;
  tools.SetMessageConsumer([&first](spv_message_level_t level, const char*, const spv_position_t& position,
                                    const char* message) {
    if (!first.empty() || level > SPV_MSG_ERROR) return;
    // Its first line: the rest quotes the offending instructions.
    std::string text(message);
    text = text.substr(0, text.find('\n'));
    first = text + " (word " + std::to_string(position.index) + ")";
  });
  if (tools.Validate(words.data(), words.size())) return "";
  return first.empty() ? "the validator rejected it" : first;
}

}  // namespace vktune::vk
