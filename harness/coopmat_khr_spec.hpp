#pragma once
// SPV_KHR_cooperative_matrix (revision 10), the numbers Debian 12's
// spirv-headers 1.3.239 do not carry yet; the NV extension's are read from
// those headers (SpvOp*NV). From the SPIR-V registry's extension text.
#include <cstdint>

namespace vktune::vk::coopmat_khr {

inline constexpr std::uint32_t kCapability = 6022;  // CooperativeMatrixKHR
inline constexpr const char* kExtension = "SPV_KHR_cooperative_matrix";
inline constexpr const char* kNvExtension = "SPV_NV_cooperative_matrix";

// Opcodes.
inline constexpr std::uint32_t kOpTypeCooperativeMatrix = 4456;  // result, component type, scope, rows, columns, use
inline constexpr std::uint32_t kOpLoad = 4457;    // result type, result, pointer, layout, [stride], [memory operand]
inline constexpr std::uint32_t kOpStore = 4458;   // pointer, object, layout, [stride], [memory operand]
inline constexpr std::uint32_t kOpMulAdd = 4459;  // result type, result, A, B, C, [operands]
inline constexpr std::uint32_t kOpLength = 4460;  // result type, result, type

// The Use operand of a matrix type (an <id> of an integer constant).
enum class Use : std::uint32_t { matrix_a = 0, matrix_b = 1, accumulator = 2 };
const char* use_name(Use use);

// The layout operand of a load or store (an <id> of an integer constant).
inline constexpr std::uint32_t kRowMajor = 0;
inline constexpr std::uint32_t kColumnMajor = 1;

// The multiply-add's Cooperative Matrix Operands mask: which matrices hold
// signed integers.
inline constexpr std::uint32_t kMatrixASigned = 0x1;
inline constexpr std::uint32_t kMatrixBSigned = 0x2;
inline constexpr std::uint32_t kMatrixCSigned = 0x4;
inline constexpr std::uint32_t kMatrixResultSigned = 0x8;

}  // namespace vktune::vk::coopmat_khr
