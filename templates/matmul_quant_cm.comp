#version 450
// y[M×N] = x[M×K] · Wᵀ for larger M (prefill) on tensor cores, W in GGUF rows
// of the block type QTYPE (include/quant_block.glsl: Q4_0, Q8_0, Q5_K, Q6_K
// or Q4_K): the USE_COOPMAT=1 path of the quantized kernels' prefill spaces
// (matmul_quant.comp is the fp32 path).
//
// Tensor cores multiply fp16, so each TILE_K slice of K is staged in shared
// memory as fp16: x rounded from fp32, W dequantized (a*q - b in fp32, as
// the fp32 path computes it) and rounded. The skeleton is
// include/coopmat_gemm.glsl (matmul_f16's), with chunks of 4 values: x's
// side, as the dequantize-first path matmul_quant_cm_f16w.comp stages it
// too, is include/coopmat_quant_x.glsl (vec4 loads, held as fp32 until
// staged); W's is here: runs of 4 weights through the block header's
// qb_run, dequantized as they are loaded (the run's scales come with its
// codes). The products are accumulated in
// fp32 through GL_NV_cooperative_matrix. The two roundings are the
// numerics of this path, as in other runtimes' fp16 tensor-core prefill:
// a relative error of a few 1e-4 for values inside fp16's range (|v| <
// 65504), which the kernels document as this path's tolerance. One shared
// buffer; each slice loaded and dequantized at its turn (CM_PREFETCH 0),
// overlapped with other workgroups' products on the SM.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 16), CM_SHAPE,
// WARPS_M, WARPS_N; THREAD_M, THREAD_N, SUBGROUP_SIZE and USE_COOPMAT are
// defined but unused here. Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require

#include "quant_block.glsl"

#include "coopmat_quant_x.glsl"

B_RAW gemm_load_b(uint n, uint k) {
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;
  vec4 q;
  float a, b;
  qb_run(n * row_bytes + (k / QB_WEIGHTS) * QB_BYTES, (k % QB_WEIGHTS) / 4u, q, a, b);
  precise const vec4 dq = a * q - b;
  return pack4(dq);
}
CHUNK gemm_chunk_b(B_RAW raw) { return raw; }
