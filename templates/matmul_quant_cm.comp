#version 450
// y[M×N] = x[M×K] · Wᵀ for larger M (prefill) on tensor cores, W in GGUF rows
// of the block type QTYPE (include/quant_block.glsl: Q4_0, Q8_0, Q5_K, Q6_K
// or Q4_K): the USE_COOPMAT=1 path of the quantized kernels' prefill spaces
// (matmul_quant.comp is the fp32 path).
//
// Tensor cores multiply fp16, so each TILE_K slice of K is staged in shared
// memory as fp16: x rounded from fp32, W dequantized (a*q - b in fp32, as
// the fp32 path computes it) and rounded (the skeleton is
// include/quant_cm_gemm.glsl, shared with the dequantize-first path). The products are accumulated in
// fp32 through GL_NV_cooperative_matrix. The two roundings are the
// numerics of this path, as in other runtimes' fp16 tensor-core prefill:
// a relative error of a few 1e-4 for values inside fp16's range (|v| <
// 65504), which the kernels document as this path's tolerance.
//
// A workgroup of WARPS_M × WARPS_N subgroups (32 invocations each)
// computes a TILE_M × TILE_N tile of y; each subgroup holds TILES_M ×
// TILES_N fp32 accumulators of CM_M × CM_N (CM_SHAPE 0: 16×16×16, 1:
// 16×8×16, 2: 16×8×8). Staging: x as vec4 loads (4 consecutive k, one row
// per TILE_K/4 invocations, so a row's loads are contiguous), W as runs of 4
// weights through the block header's qb_run, both stored as two packed
// half words; rows and columns past M and N and k past K are staged as
// zeros, so partial tiles multiply zeros and only the stores are guarded.
// Shared rows are padded by 8 halves (16 bytes) so the 8 rows one matrix
// load reads at a time fall in different banks. One shared buffer: stage,
// barrier, multiply, barrier. Dequantizing is the costly part of a slice;
// its loads are independent across runs, and several workgroups per SM
// overlap one's staging with another's products.
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

#include "quant_cm_gemm.glsl"

uvec2 staged_w(uint n, uint k) {
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;
  vec4 q;
  float a, b;
  qb_run(n * row_bytes + (k / QB_WEIGHTS) * QB_BYTES, (k % QB_WEIGHTS) / 4u, q, a, b);
  precise const vec4 dq = a * q - b;
  return pack4(dq);
}
