#pragma once
// SPV_KHR_cooperative_matrix's numbers (capability, opcodes, Use, layouts,
// operand bits), which Debian 12's spirv-headers 1.3.239 do not carry yet:
// declared once in runtime/src/spirv_khr_cooperative_matrix.inc, which the
// runtime reads too, and copied here at configure time. The NV extension's
// are read from those headers (SpvOp*NV).
#include <cstdint>

namespace vktune::vk::coopmat_khr {

#include "vktune_spirv_khr_cooperative_matrix.inc"

inline constexpr const char* kNvExtension = "SPV_NV_cooperative_matrix";

const char* use_name(Use use);

}  // namespace vktune::vk::coopmat_khr
