#version 450
// y[M×N] = x[M×K] · Wᵀ for larger M (prefill) on tensor cores, W in GGUF rows
// of the block type QTYPE (include/quant_block.glsl: Q4_0, Q8_0, Q5_K, Q6_K
// or Q4_K): the USE_COOPMAT=1 path of the quantized kernels' prefill spaces
// (matmul_quant.comp is the fp32 path).
//
// Tensor cores multiply fp16, so each TILE_K slice of K is staged in shared
// memory as fp16: x rounded from fp32, W dequantized (a*q - b in fp32, as
// the fp32 path computes it) and rounded. The skeleton is
// include/coopmat_gemm.glsl (matmul_f16's, shared with the
// dequantize-first path matmul_quant_cm_f16w.comp), with chunks of 4
// values: x as vec4 loads, held as fp32 until staged; W as runs of 4
// weights through the block header's qb_run, dequantized as they are loaded
// (the run's scales come with its codes). The products are accumulated in
// fp32 through GL_NV_cooperative_matrix. The two roundings are the
// numerics of this path, as in other runtimes' fp16 tensor-core prefill:
// a relative error of a few 1e-4 for values inside fp16's range (|v| <
// 65504), which the kernels document as this path's tolerance. One shared
// buffer; each slice loaded and dequantized at its turn (CM_PREFETCH 0),
// overlapped with other workgroups' products on the SM.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 16), CM_SHAPE,
// WARPS_M, WARPS_N; THREAD_M, THREAD_N, SUBGROUP_SIZE and USE_COOPMAT are
// defined but unused here. Semantics: QTYPE. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require

#include "quant_block.glsl"

layout(push_constant) uniform Shape { uint M; uint N; uint K; };
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

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

uvec2 pack4(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }

A_RAW gemm_load_a(uint m, uint k) { return xv[m * (K / 4u) + k / 4u]; }
CHUNK gemm_chunk_a(A_RAW raw) { return pack4(raw); }

B_RAW gemm_load_b(uint n, uint k) {
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;
  vec4 q;
  float a, b;
  qb_run(n * row_bytes + (k / QB_WEIGHTS) * QB_BYTES, (k % QB_WEIGHTS) / 4u, q, a, b);
  precise const vec4 dq = a * q - b;
  return pack4(dq);
}
CHUNK gemm_chunk_b(B_RAW raw) { return raw; }
