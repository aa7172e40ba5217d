// What the quantized kernels' tensor-core prefill GEMMs (matmul_quant_cm.comp,
// fused dequantization; matmul_quant_cm_f16w.comp, fp16 weights of a first
// dispatch) share around include/coopmat_gemm.glsl: the push constants M, N,
// K, the x (binding 0) and y (binding 2) buffers (include/matmul_xy.glsl),
// the skeleton's tile settings, and x's side of the staging: fp32 loads of 4
// values, held as fp32 until staged, then rounded to fp16 (pack4); with
// ACT_F16, loads of 4 halves staged as they are, and y stored as fp16
// (Y_F16). Each template adds its W side, gemm_load_b and gemm_chunk_b, as a
// run of 4 weights (B_RAW, 4 halves).
//
// The including template enables the extensions coopmat_gemm.glsl needs and
// defines the tile parameters (TILE_M, TILE_N, TILE_K, CM_SHAPE, WARPS_M,
// WARPS_N) first.

layout(push_constant) uniform Shape { uint M; uint N; uint K; };
#include "matmul_xy.glsl"

#ifdef X16
// DEQUANT_STAGE=2: x's halves were written behind W16's (binding 3, at N*K
// halves) by round_x_f16.comp; the GEMM stages 16-byte chunks of x and of
// W16 as they are, with the next CM_PREFETCH slices in flight, as
// matmul_f16's winners do.
#ifdef ACT_F16
#error "X16 rounds fp32 x: with ACT_F16 x is fp16 already"
#endif
#ifndef CM_PREFETCH
#error "X16 takes CM_PREFETCH, the slices in flight (the plan defines it)"
#endif
#define CM_STAGES 1
#define CM_VEC 8
#define A_RAW uvec4
#define A_RAW_ZERO uvec4(0u)
#define B_RAW uvec4
#define B_RAW_ZERO uvec4(0u)
#else
// Each slice loaded at its turn: on an H100 at 512×4096×4096, loading the
// next slice during the products (CM_PREFETCH=1, x held as fp32) made the
// dequantize-first path's best tile 11% slower (144 → 160 µs); on an H200
// through KHR, 16-byte chunks changed it by -0.5 to -2.5% and the next slice
// in flight by +0.5 to +6.6% (measurements/nvidia-h200/session37/).
#define CM_STAGES 1
#define CM_PREFETCH 0
#define CM_VEC 4
#ifdef ACT_F16
#define A_RAW f16vec4  // x's halves as stored: staging moves their bits
#define A_RAW_ZERO f16vec4(0.0)
#define Y_F16          // and y's accumulators are rounded to fp16 as stored
#else
#define A_RAW vec4
#define A_RAW_ZERO vec4(0.0)
#endif
#define B_RAW uvec2
#define B_RAW_ZERO uvec2(0u)
#endif

#include "coopmat_gemm.glsl"

#ifdef X16
layout(std430, set = 0, binding = 3) readonly buffer X16Buf { uvec4 x16[]; };  // W16's halves, then x's
A_RAW gemm_load_a(uint m, uint k) { return x16[(N * K + m * K + k) / 8u]; }
CHUNK gemm_chunk_a(A_RAW raw) { return raw; }
#else
uvec2 pack4(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }

A_RAW gemm_load_a(uint m, uint k) { return xv[m * (K / 4u) + k / 4u]; }
#ifdef ACT_F16
CHUNK gemm_chunk_a(A_RAW raw) { return uvec2(packFloat2x16(raw.xy), packFloat2x16(raw.zw)); }
#else
CHUNK gemm_chunk_a(A_RAW raw) { return pack4(raw); }
#endif
#endif
