#pragma once
// The tensor-core prefill path of the quantized matmuls (matmul_q4k and the
// kernels of quant_matmul.hpp), USE_COOPMAT=1 in their prefill spaces:
// templates/matmul_quant_cm.comp stages x and the dequantized W as fp16 in
// shared memory and multiplies them through GL_NV_cooperative_matrix with
// fp32 accumulators. Its parameters, the two paths of a prefill space, the
// rules a variant must meet, its pruning, its plan and its tolerance (the
// fp16 rounding of x and W is the numerics of the path).
//
// A third path, "tensor-cores-dequant" (USE_COOPMAT=1, DEQUANT_STAGE=1),
// runs the same GEMM in two dispatches: templates/dequant_f16.comp
// dequantizes all of W to fp16 into the scratch binding "W16" (binding 3 of
// the prefill space, 2*N*K bytes; DQ_WG invocations per workgroup, DQ_RUN
// weights each), and templates/matmul_quant_cm_f16w.comp multiplies x (fp32,
// rounded to fp16 when staged) by W16 with the fused path's tiles. The
// values multiplied are the fused path's bit for bit (a*q - b in fp32,
// rounded to fp16), so the tolerance is the same. DEQUANT_STAGE, DQ_WG and
// DQ_RUN are pinned at their first values on the other paths and never
// defined there (stored variants keep their hashes).
//
// A fourth, "tensor-cores-dequant-x16" (DEQUANT_STAGE=2, kernels whose x is
// fp32 values), adds a dispatch between the two: templates/round_x_f16.comp
// rounds x to fp16 into W16 after W's halves, and the GEMM stage then reads
// both as 16-byte chunks with the next slice in flight (matmul_f16's
// staging) instead of rounding x at every staging, once per tile column.
// The values multiplied are again the fused path's. Its GEMM keeps
// CM_PREFETCH slices' loads in flight (1 or 2; one path per value).
//
// A fifth, "tensor-cores-int8" (DEQUANT_STAGE=3, kernels whose x is fp32
// values), multiplies 8-bit codes on int8 cooperative matrices (16×16×32,
// int32 accumulators) in three dispatches: templates/quantize_x_q8.comp
// quantizes x per 32 values as the decode path's X_QUANT=1 does,
// templates/requant_w_q8.comp writes W as 8-bit codes with a scale and an
// offset per 32 weights (Q4_0, Q8_0, Q4_K and Q5_K exactly; Q6_K, whose
// 16-weight sub-blocks carry two scales per 32, quantized again to 8 bits
// per 32), both into W16, and templates/matmul_quant_cm_i8.comp multiplies
// them, applying each 32-group's scales to its int32 product. It reads the
// tile parameters (TILE_M, TILE_N, TILE_K a multiple of 32, WARPS_M,
// WARPS_N); CM_SHAPE, DQ_WG, DQ_RUN and CM_PREFETCH are pinned. Its
// numerics are x's 8-bit rounding (kInt8Tolerance).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::quant_coopmat {

// USE_COOPMAT, CM_SHAPE, WARPS_M, WARPS_N, appended to a prefill space whose
// TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N and SUBGROUP_SIZE the fp32 path
// uses.
std::vector<Parameter> parameters();

// DEQUANT_STAGE, DQ_WG, DQ_RUN, CM_PREFETCH, appended after parameters().
// DEQUANT_STAGE takes 2 only for a kernel whose x is read as fp32 values
// (`fp32_x`); CM_PREFETCH is read by that stage's GEMM alone.
std::vector<Parameter> dequant_parameters(bool fp32_x);

// The prefill space's scratch binding of the dequantized weights (binding
// 3): 2*N*K bytes of fp16, after x, W and y; with `fp32_x` 2*M*K more, for
// x's halves (DEQUANT_STAGE=2).
Binding w16_binding(bool fp32_x);

// Whether `name` is one of dequant_parameters() (defined only on the
// tensor-cores-dequant path).
bool is_dequant_parameter(const std::string& name);

// The prefill space's two paths: "fp32-tiles" (USE_COOPMAT=0, the fp32
// template; CM_SHAPE, WARPS_M and WARPS_N pinned at their first values) and
// "tensor-cores" (USE_COOPMAT=1, matmul_quant_cm.comp; THREAD_M, THREAD_N and
// SUBGROUP_SIZE pinned at their first values).
// "tensor-cores-dequant" (USE_COOPMAT=1 and DEQUANT_STAGE=1; the fp32 path's
// parameters pinned), and where DEQUANT_STAGE takes 2
// "tensor-cores-dequant-x16" and "tensor-cores-dequant-x16-prefetch2"
// (CM_PREFETCH 1 and 2), and "tensor-cores-int8" (DEQUANT_STAGE=3). The
// first two list "W16" as unused.
std::vector<Path> paths(const Space& space);

// The parameters the path of `config` does not use must stay at their first
// value in `space` (so each variant is counted once); "" when they do.
Violation idle_violation(const Config& config, const Space& space);

// USE_COOPMAT=1 on `device` for `shape`: the device's cooperative matrices,
// the tile split into whole matrices per subgroup, the staging split evenly
// over the workgroup (what the template requires). Device limits are the
// caller's (plan_limits_violation).
Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device);

// The quantized tensor-core path's own legality rules.
inline constexpr RuleId kIndexing{"quant_coopmat.indexing"};         // W16 indexed in 32 bits
inline constexpr RuleId kStagingRuns{"quant_coopmat.staging_runs"};  // a slice's runs split evenly
inline constexpr RuleId kInt8Tile{"quant_coopmat.int8_tile"};        // DEQUANT_STAGE=3's 16×16×32 blocks

// The tensor-core path's pruning, on every device: staging of more than 16
// runs of 4 per invocation, tiles past the shape rounded up; on NVIDIA's:
// the int8 path (measured slower than the fp16 path on H200s).
std::vector<PruningRule> pruning();

// The plan of a USE_COOPMAT=1 variant: matmul_quant_cm.comp with every
// parameter of `space` defined and QTYPE = `qtype` (5 = Q4_K).
ShaderPlan plan(const Config& config, const Space& space, int qtype);

// The two dispatches of a DEQUANT_STAGE=1 variant: dequant_f16.comp (QTYPE,
// DQ_WG, DQ_RUN defined; a workgroup per row of W and DQ_WG*DQ_RUN weights)
// and matmul_quant_cm_f16w.comp (the tile parameters, as plan defines them);
// DEQUANT_STAGE=2: round_x_f16.comp between them (a workgroup per row of x
// and 2048 of its values), and X16 defined for the GEMM. DEQUANT_STAGE=3:
// quantize_x_q8.comp (a workgroup per row of x and 2048 of its values),
// requant_w_q8.comp (QTYPE; a workgroup per row of W and 64 groups of 32)
// and matmul_quant_cm_i8.comp (the tile parameters and QTYPE).
std::vector<ShaderPlan> dequant_stages(const Config& config, const Space& space, int qtype);

bool uses_coopmat(const Config& config);
bool uses_dequant_stage(const Config& config);  // DEQUANT_STAGE 1, 2 or 3
bool rounds_x_first(const Config& config);      // DEQUANT_STAGE=2
bool multiplies_int8(const Config& config);     // DEQUANT_STAGE=3

// x and the dequantized weights are rounded to fp16 (relative error up to
// 2^-11 each) before fp32 accumulation: for random signs the relative L2
// error is a few 1e-4 and the largest error about 1e-3 of the largest
// output. A wrong tile, slice or block gives errors of order 1e-1 and more.
constexpr Tolerance kTolerance{2e-3, 1e-2};

// DEQUANT_STAGE=3 multiplies x rounded to 8 bits per 32 values (step
// max|x|/127), the decode path's X_QUANT=1 rounding, whose tolerance it
// takes (kernels/quantized_activations.hpp: measured 1.4e-3 to 5.5e-3
// relative L2); the weights are exact but for Q6_K's, rounded again to 8
// bits per 32 (an error of at most half a step of the group's largest
// weight / 127, the same kind as x's). A wrong scale, code or group gives
// errors above 1e-1.
constexpr Tolerance kInt8Tolerance{2e-2, 3e-2};

}  // namespace vktune::kernels::quant_coopmat
