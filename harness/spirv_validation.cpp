#include "harness/spirv_validation.hpp"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <optional>
#include <vector>

#include "harness/coopmat_khr_check.hpp"
#include "harness/matrix_free_twin.hpp"

namespace vktune::vk {

namespace {

std::string validator_problem(std::span<const std::uint32_t> words) {
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

// The twin turns each matrix type into a 4-vector, and KHR declares one
// matrix type per Use, so the twin declares one vector type several times,
// which the validator refuses ("Duplicate non-aggregate type declarations");
// SPIRV-Tools' own pass merges them, with the validator before it off.
std::optional<std::vector<std::uint32_t>> without_duplicate_types(const std::vector<std::uint32_t>& twin) {
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_3);
  optimizer.SetMessageConsumer([](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
  optimizer.RegisterPass(spvtools::CreateRemoveDuplicatesPass());
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);
  std::vector<std::uint32_t> merged;
  if (!optimizer.Run(twin.data(), twin.size(), &merged, options)) return std::nullopt;
  return merged;
}

}  // namespace

std::string spirv_validation_problem(std::span<const std::uint32_t> words) {
  // Debian 12's validator rejects the KHR cooperative-matrix capability
  // outright, which refused every table a KHR device exported: the matrices
  // get vktune's own structural check, and the rest of the module the
  // validator, through the twin without them.
  if (!declares_khr_cooperative_matrix(words)) return validator_problem(words);
  if (auto problem = khr_cooperative_matrix_problem(words); !problem.empty()) return problem;
  const auto twin = matrix_free_twin(words);
  if (!twin) return validator_problem(words);
  const auto merged = without_duplicate_types(*twin);
  return merged ? validator_problem(*merged) : validator_problem(*twin);
}

}  // namespace vktune::vk
