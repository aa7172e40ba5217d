// required_features: what a SPIR-V module's capabilities need of a device:
// Vulkan feature members to enable, and the subgroup operations
// (VkPhysicalDeviceSubgroupProperties::supportedOperations, in compute) it
// uses. SPIR-V puts every OpCapability right after the 5-word header, so the
// scan stops at the first other instruction. Capability numbers and the
// OpCapability opcode are spirv-headers' (Debian's spirv-headers), not
// typed here; CooperativeMatrixKHR, which those headers predate, is
// spirv_khr_cooperative_matrix.inc's.
#include <algorithm>
#include <cstdint>
#include <map>

#include <spirv/unified1/spirv.h>

#include "vktune_runtime.hpp"

namespace vktune::runtime {

namespace {

namespace coopmat_khr {
#include "spirv_khr_cooperative_matrix.inc"
}

const std::map<std::uint32_t, const char*>& need_of_capability() {
  static const std::map<std::uint32_t, const char*> map = {
      {SpvCapabilityFloat16, "shaderFloat16"},
      {SpvCapabilityFloat64, "shaderFloat64"},
      {SpvCapabilityInt64, "shaderInt64"},
      {SpvCapabilityInt16, "shaderInt16"},
      {SpvCapabilityInt8, "shaderInt8"},
      {SpvCapabilityStorageBuffer16BitAccess, "storageBuffer16BitAccess"},
      {SpvCapabilityUniformAndStorageBuffer16BitAccess, "uniformAndStorageBuffer16BitAccess"},
      {SpvCapabilityStorageBuffer8BitAccess, "storageBuffer8BitAccess"},
      {SpvCapabilityVulkanMemoryModel, "vulkanMemoryModel"},
      {SpvCapabilityCooperativeMatrixNV, "cooperativeMatrixNV"},
      {coopmat_khr::kCapability, "cooperativeMatrixKHR"},
      {SpvCapabilityDotProductInputAll, "shaderIntegerDotProduct"},
      {SpvCapabilityDotProductInput4x8Bit, "shaderIntegerDotProduct"},
      {SpvCapabilityDotProductInput4x8BitPacked, "shaderIntegerDotProduct"},
      {SpvCapabilityDotProduct, "shaderIntegerDotProduct"},
      // Subgroup operations: properties the device has, not features to
      // enable (the names start "subgroup_"; vktune_runtime_vulkan.h checks
      // them against supportedOperations instead of enabling them).
      {SpvCapabilityGroupNonUniform, "subgroup_basic"},
      {SpvCapabilityGroupNonUniformVote, "subgroup_vote"},
      {SpvCapabilityGroupNonUniformArithmetic, "subgroup_arithmetic"},
      {SpvCapabilityGroupNonUniformBallot, "subgroup_ballot"},
      {SpvCapabilityGroupNonUniformShuffle, "subgroup_shuffle"},
      {SpvCapabilityGroupNonUniformShuffleRelative, "subgroup_shuffle_relative"},
      {SpvCapabilityGroupNonUniformClustered, "subgroup_clustered"},
      {SpvCapabilityGroupNonUniformQuad, "subgroup_quad"},
  };
  return map;
}

}  // namespace

std::vector<std::string> required_features(const std::vector<std::uint32_t>& spirv) {
  if (spirv.size() < 5 || spirv[0] != SpvMagicNumber) {
    throw Error(Error::Kind::format, "vktune: not a SPIR-V module (" + std::to_string(spirv.size()) +
                                         " words, no SPIR-V magic number at word 0)");
  }
  std::vector<std::string> features;
  for (std::size_t at = 5; at < spirv.size();) {
    const std::uint32_t words = spirv[at] >> SpvWordCountShift, opcode = spirv[at] & SpvOpCodeMask;
    if (words == 0 || at + words > spirv.size()) {
      throw Error(Error::Kind::format, "vktune: SPIR-V instruction at word " + std::to_string(at) +
                                           " has a bad word count " + std::to_string(words));
    }
    if (opcode != SpvOpCapability) break;
    if (words >= 2) {
      const auto it = need_of_capability().find(spirv[at + 1]);
      if (it != need_of_capability().end()) features.emplace_back(it->second);
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
