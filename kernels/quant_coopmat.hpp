#pragma once
// The tensor-core prefill path of the quantized matmuls (matmul_q4k and the
// kernels of quant_matmul.hpp), USE_COOPMAT=1 in their prefill spaces:
// templates/matmul_quant_cm.comp stages x and the dequantized W as fp16 in
// shared memory and multiplies them through GL_NV_cooperative_matrix with
// fp32 accumulators. Its parameters, the two paths of a prefill space, the
// rules a variant must meet, its pruning, its plan and its tolerance (the
// fp16 rounding of x and W is the numerics of the path).
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

// The prefill space's two paths: "fp32-tiles" (USE_COOPMAT=0, the fp32
// template; CM_SHAPE, WARPS_M and WARPS_N pinned at their first values) and
// "tensor-cores" (USE_COOPMAT=1, matmul_quant_cm.comp; THREAD_M, THREAD_N and
// SUBGROUP_SIZE pinned at their first values).
std::vector<SubSpace> paths(const Space& space);

// The parameters the path of `config` does not use must stay at their first
// value in `space` (so each variant is counted once); "" when they do.
std::string idle_violation(const Config& config, const Space& space);

// USE_COOPMAT=1 on `device` for `shape`: the device's cooperative matrices,
// the tile split into whole matrices per subgroup, the staging split evenly
// over the workgroup (what the template requires). Device limits are the
// caller's (plan_limits_violation).
std::string violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device);

// The tensor-core path's pruning, on every device: staging of more than 16
// runs of 4 per invocation, tiles past the shape rounded up.
std::vector<PruningRule> pruning();

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
