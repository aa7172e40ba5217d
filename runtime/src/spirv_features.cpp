// required_features: the device features a SPIR-V module's capabilities need.
// SPIR-V puts every OpCapability right after the 5-word header, so the scan
// stops at the first other instruction.
#include <algorithm>
#include <map>

#include "vktune_runtime.hpp"

namespace vktune::runtime {

namespace {

constexpr std::uint32_t kMagic = 0x07230203u;
constexpr std::uint32_t kOpCapability = 17;

// Capability numbers from the SPIR-V specification (and its extensions).
const std::map<std::uint32_t, const char*>& feature_of_capability() {
  static const std::map<std::uint32_t, const char*> map = {
      {9, "shaderFloat16"},                          // Float16
      {10, "shaderFloat64"},                         // Float64
      {11, "shaderInt64"},                           // Int64
      {22, "shaderInt16"},                           // Int16
      {39, "shaderInt8"},                            // Int8
      {4433, "storageBuffer16BitAccess"},            // StorageBuffer16BitAccess
      {4434, "uniformAndStorageBuffer16BitAccess"},  // UniformAndStorageBuffer16BitAccess
      {4448, "storageBuffer8BitAccess"},             // StorageBuffer8BitAccess
      {5345, "vulkanMemoryModel"},                   // VulkanMemoryModel
      {5357, "cooperativeMatrixNV"},                 // CooperativeMatrixNV
      {6016, "shaderIntegerDotProduct"},             // DotProductInputAll
      {6017, "shaderIntegerDotProduct"},             // DotProductInput4x8Bit
      {6018, "shaderIntegerDotProduct"},             // DotProductInput4x8BitPacked
      {6019, "shaderIntegerDotProduct"},             // DotProduct
  };
  return map;
}

}  // namespace

std::vector<std::string> required_features(const std::vector<std::uint32_t>& spirv) {
  if (spirv.size() < 5 || spirv[0] != kMagic) {
    throw Error(Error::Kind::format, "vktune: not a SPIR-V module (" + std::to_string(spirv.size()) +
                                         " words, no SPIR-V magic number at word 0)");
  }
  std::vector<std::string> features;
  for (std::size_t at = 5; at < spirv.size();) {
    const std::uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xFFFFu;
    if (words == 0 || at + words > spirv.size()) {
      throw Error(Error::Kind::format, "vktune: SPIR-V instruction at word " + std::to_string(at) +
                                           " has a bad word count " + std::to_string(words));
    }
    if (opcode != kOpCapability) break;
    if (words >= 2) {
      const auto it = feature_of_capability().find(spirv[at + 1]);
      if (it != feature_of_capability().end()) features.emplace_back(it->second);
    }
    at += words;
  }
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  return features;
}

std::vector<std::string> device_features(const Contract& contract) {
  auto features = contract.features;
  for (const auto& stage : contract.stages) {
    if (stage.required_subgroup_size != 0) features.emplace_back("subgroupSizeControl");
    if (stage.require_full_subgroups) features.emplace_back("computeFullSubgroups");
  }
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  return features;
}

}  // namespace vktune::runtime
