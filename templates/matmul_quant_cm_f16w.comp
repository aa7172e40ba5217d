#version 450
// y[M×N] = x[M×K] · W16ᵀ for larger M (prefill) on tensor cores, W16 the
// fp16 weights (binding 3, N×K halves row-major) that dequant_f16.comp wrote
// in the dispatch before: the GEMM stage of the quantized kernels'
// tensor-cores-dequant path (DEQUANT_STAGE=1, kernels/quant_coopmat.hpp).
//
// The skeleton of matmul_quant_cm.comp (the fused path),
// include/coopmat_gemm.glsl, with its W loads replaced: a run of 4 weights
// is one 8-byte load of W16 instead of a block header's qb_run and a
// dequantization. The staged values are the fused path's bit for bit, so the
// results are too.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 16), CM_SHAPE,
// WARPS_M, WARPS_N; THREAD_M, THREAD_N, SUBGROUP_SIZE and USE_COOPMAT are
// defined but unused here. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require

layout(push_constant) uniform Shape { uint M; uint N; uint K; };
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };
layout(std430, set = 0, binding = 3) readonly buffer W16Buf { uvec2 w16[]; };  // 4 halves each

// Each slice loaded at its turn: on an H100 at 512×4096×4096, loading the
// next slice during the products (CM_PREFETCH=1, x held as fp32) made the
// dequantize-first path's best tile 11% slower (144 → 160 µs).
#define CM_STAGES 1
#define CM_PREFETCH 0
#define CM_VEC 4
#define A_RAW vec4
#define A_RAW_ZERO vec4(0.0)
#define B_RAW uvec2
#define B_RAW_ZERO uvec2(0u)

#include "coopmat_gemm.glsl"

A_RAW gemm_load_a(uint m, uint k) { return xv[m * (K / 4u) + k / 4u]; }
CHUNK gemm_chunk_a(A_RAW raw) { return uvec2(packHalf2x16(raw.xy), packHalf2x16(raw.zw)); }
B_RAW gemm_load_b(uint n, uint k) { return w16[(n * K + k) / 4u]; }
CHUNK gemm_chunk_b(B_RAW raw) { return raw; }
