#version 450
// y[M×N] = x[M×K] · W16ᵀ for larger M (prefill) on tensor cores, W16 the
// fp16 weights (binding 3, N×K halves row-major) that dequant_f16.comp wrote
// in the dispatch before: the GEMM stage of the quantized kernels'
// tensor-cores-dequant path (DEQUANT_STAGE=1, kernels/quant_coopmat.hpp).
//
// The skeleton of matmul_quant_cm.comp (the fused path),
// include/coopmat_gemm.glsl, and its staging of x,
// include/coopmat_quant_x.glsl, with its W loads replaced: a run of 4
// weights is one 8-byte load of W16 instead of a block header's qb_run and a
// dequantization. The staged values are the fused path's bit for bit, so the
// results are too. With X16 (DEQUANT_STAGE=2) x's halves come from behind
// W16's, where round_x_f16.comp wrote them, and both are read as 16-byte
// chunks of 8 (include/coopmat_quant_x.glsl).
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 16), CM_SHAPE,
// WARPS_M, WARPS_N; THREAD_M, THREAD_N, SUBGROUP_SIZE and USE_COOPMAT are
// defined but unused here; X16. ACT_F16 (fp16 x and y): include/matmul_xy.glsl.
// Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require

#include "coopmat_quant_x.glsl"

layout(std430, set = 0, binding = 3) readonly buffer W16Buf { B_RAW w16[]; };  // CM_VEC halves each

B_RAW gemm_load_b(uint n, uint k) { return w16[(n * K + k) / CM_VEC]; }
CHUNK gemm_chunk_b(B_RAW raw) { return raw; }
