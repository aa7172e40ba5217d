#pragma once
// The tensor-core prefill path of the quantized matmuls (matmul_q4k and the
// kernels of quant_matmul.hpp), USE_COOPMAT=1 in their prefill spaces:
// templates/matmul_quant_cm.comp stages x and the dequantized W as fp16 in
// shared memory and multiplies them through GL_NV_cooperative_matrix with
// fp32 accumulators. Its parameters, the rules a variant must meet, its plan
// and its tolerance (the fp16 rounding of x and W is the numerics of the
// path).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"

namespace vktune::kernels::quant_coopmat {

// USE_COOPMAT, CM_SHAPE, WARPS_M, WARPS_N, appended to a prefill space whose
// TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N and SUBGROUP_SIZE the fp32 path
// uses.
std::vector<Parameter> parameters();

// The parameters the path of `config` does not use must stay at their first
// value in `space` (so each variant is counted once); "" when they do.
std::string idle_violation(const Config& config, const Space& space);

// USE_COOPMAT=1 on `device` for `shape`: the device's cooperative matrices,
// the tile split into whole matrices per subgroup, the staging split evenly
// over the workgroup. Device limits are the caller's (plan_limits_violation).
std::string violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device);

// The plan of a USE_COOPMAT=1 variant: matmul_quant_cm.comp with every
// parameter of `space` defined and QTYPE = `qtype` (5 = Q4_K).
ShaderPlan plan(const Config& config, const Space& space, int qtype);

bool uses_coopmat(const Config& config);

// x and the dequantized weights are rounded to fp16 (relative error up to
// 2^-11 each) before fp32 accumulation: for random signs the relative L2
// error is a few 1e-4 and the largest error about 1e-3 of the largest
// output. A wrong tile, slice or block gives errors of order 1e-1 and more.
constexpr Tolerance kTolerance{2e-3, 1e-2};

}  // namespace vktune::kernels::quant_coopmat
