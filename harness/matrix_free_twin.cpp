#include "harness/matrix_free_twin.hpp"

#include <spirv/unified1/spirv.h>

#include <set>

#include "common/error.hpp"
#include "harness/coopmat_khr_spec.hpp"
#include "harness/spirv_words.hpp"

namespace vktune::vk {

namespace {

// The capabilities a module declares, which come first after the header
// (SPIR-V's logical layout).
bool declares_capability(std::span<const std::uint32_t> spirv, std::uint32_t a, std::uint32_t b) {
  for (std::size_t at = spirv::kHeaderWords; at + 1 < spirv.size();) {
    const std::uint32_t words = spirv[at] >> 16;
    if ((spirv[at] & 0xffff) != SpvOpCapability || words == 0) break;
    if (spirv[at + 1] == a || spirv[at + 1] == b) return true;
    at += words;
  }
  return false;
}

}  // namespace

bool declares_cooperative_matrix(std::span<const std::uint32_t> spirv) {
  return declares_capability(spirv, SpvCapabilityCooperativeMatrixNV, coopmat_khr::kCapability);
}

bool declares_khr_cooperative_matrix(std::span<const std::uint32_t> spirv) {
  return declares_capability(spirv, coopmat_khr::kCapability, coopmat_khr::kCapability);
}

std::optional<std::vector<std::uint32_t>> matrix_free_twin(std::span<const std::uint32_t> spirv) {
  if (!declares_cooperative_matrix(spirv)) return std::nullopt;
  spirv::Module module;
  try {
    module = spirv::split_module(spirv);
  } catch (const Error&) {
    return std::nullopt;  // SPIRV-Cross says what is wrong with it
  }
  std::set<std::uint32_t> matrix_types;
  std::vector<spirv::Instruction> kept;
  for (auto& inst : module.instructions) {
    auto& o = inst.operands;
    const auto op = inst.opcode;
    if ((op == SpvOpCapability && !o.empty() &&
         (o[0] == SpvCapabilityCooperativeMatrixNV || o[0] == coopmat_khr::kCapability)) ||
        (op == SpvOpExtension && (spirv::literal_string(o) == coopmat_khr::kExtension ||
                                  spirv::literal_string(o) == coopmat_khr::kNvExtension)) ||
        op == SpvOpCooperativeMatrixStoreNV || op == coopmat_khr::kOpStore) {
      continue;
    }
    if ((op == SpvOpTypeCooperativeMatrixNV || op == coopmat_khr::kOpTypeCooperativeMatrix) && o.size() >= 2) {
      matrix_types.insert(o[0]);
      inst = {SpvOpTypeVector, {o[0], o[1], 4}};
    } else if (((op == SpvOpConstantComposite || op == SpvOpConstantNull) && !o.empty() && matrix_types.count(o[0])) ||
               ((op == SpvOpCooperativeMatrixLoadNV || op == coopmat_khr::kOpLoad ||
                 op == SpvOpCooperativeMatrixMulAddNV || op == coopmat_khr::kOpMulAdd ||
                 op == SpvOpCooperativeMatrixLengthNV || op == coopmat_khr::kOpLength) &&
                o.size() >= 2)) {
      inst = {SpvOpUndef, {o[0], o[1]}};
    }
    kept.push_back(std::move(inst));
  }
  module.instructions = std::move(kept);
  return spirv::join_module(module);
}

}  // namespace vktune::vk
