#pragma once
// What the cooperative-matrix (tensor-core) paths of the matmul kernels share
// (matmul_f16's dense path, the quantized kernels' prefill): the matrix
// shapes a CM_SHAPE parameter names, the workgroup tile it implies, and the
// rules a variant must meet on a device (a cooperative-matrix extension,
// NV or KHR as the device's `cooperative_matrix` says, offering the shape
// with fp16 inputs and fp32 accumulators; subgroups of 32; register and
// tile limits).
#include <array>
#include <cstdint>
#include <string>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::coopmat {

struct MatrixShape {
  std::uint32_t m, n, k;
};
// CM_SHAPE indexes this list; the constraint keeps those the device reports.
constexpr std::array<MatrixShape, 3> kShapes{{{16, 16, 16}, {16, 8, 16}, {16, 8, 8}}};
constexpr std::uint32_t kWarp = 32;

// The CM_SHAPE parameter and the subgroup grid (WARPS_M, WARPS_N).
Parameter shape_parameter();
Parameter warps_m_parameter();
Parameter warps_n_parameter();

// A workgroup's tile (TILE_M × TILE_N × TILE_K) and how its subgroups split it.
struct Tile {
  MatrixShape cm;
  std::uint32_t warps, bm, bn, bk;
  std::uint32_t wm, wn;  // rows and columns of one subgroup's part
};
Tile tile_of(const Config& config);

// The element types of a product: its inputs' and its accumulators', as
// vk::CooperativeMatrixShape names them, and the shader feature the inputs'
// type needs.
struct ElementTypes {
  const char* inputs;
  const char* accumulators;
};
inline constexpr ElementTypes kFp16{"f16", "f32"};  // the fp16 paths (shaderFloat16)
inline constexpr ElementTypes kInt8{"s8", "s32"};   // the int8 prefill (shaderInt8)

// The int8 products' one shape (GL_NV_integer_cooperative_matrix).
constexpr MatrixShape kInt8Shape{16, 16, 32};

// Empty when the device multiplies `types.inputs` `cm` matrices into
// `types.accumulators` ones in subgroups of exactly 32 invocations; else why
// not, the message starting with `path` (the parameter that asks for tensor
// cores, e.g. "MMA=1").
Violation device_violation(const MatrixShape& cm, const vk::DeviceInfo& device, const std::string& path,
                           const ElementTypes& types = kFp16);

// Empty when the device runs fp16 × fp16 + fp32 matrices of the config's
// CM_SHAPE in 32-wide subgroups and the tile splits into whole matrices per
// subgroup within the accumulator budget; else why not.
Violation violation(const Config& config, const vk::DeviceInfo& device);

// The tensor-core tiles' legality rules (besides the shared device ones).
inline constexpr RuleId kSubgroups{"coopmat.subgroups"};        // at most 8 subgroups per workgroup
inline constexpr RuleId kTileShape{"coopmat.tile_shape"};       // whole matrices per subgroup, TILE_K
inline constexpr RuleId kAccumulators{"coopmat.accumulators"};  // at most 128 accumulator floats per invocation

}  // namespace vktune::kernels::coopmat
