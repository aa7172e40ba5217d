// What the quantized kernels' tensor-core prefill GEMMs (matmul_quant_cm.comp,
// fused dequantization; matmul_quant_cm_f16w.comp, fp16 weights of a first
// dispatch) share around include/coopmat_gemm.glsl: the push constants M, N,
// K, the x (binding 0) and y (binding 2) buffers, the skeleton's tile
// settings, and x's side of the staging: fp32 loads of 4 values, held as fp32
// until staged, then rounded to fp16 (pack4). Each template adds its W side,
// gemm_load_b and gemm_chunk_b, as a run of 4 weights (B_RAW, 4 halves).
//
// The including template enables the extensions coopmat_gemm.glsl needs and
// defines the tile parameters (TILE_M, TILE_N, TILE_K, CM_SHAPE, WARPS_M,
// WARPS_N) first.

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
