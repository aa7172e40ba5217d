#version 450
// matmul_f16: y[M×N] = x[M×K] · Wᵀ with x and W fp16 (W is N rows of K),
// products accumulated in fp32, y fp32; all row-major. The fp16 buffers are
// read as 32-bit words (two halves each; the host pads them to 16 bytes).
//
// USE_COOPMAT=0: the scalar tiled body of templates/include/matmul_tiled.glsl
//   (halves widened to fp32 while staging). Parameters TILE_M, TILE_N,
//   TILE_K, THREAD_M, THREAD_N, VEC (1 or 4 halves per load).
// USE_COOPMAT=1: tensor cores through GL_NV_cooperative_matrix, the
//   skeleton of templates/include/coopmat_gemm.glsl (TILE_M × TILE_N tiles
//   of WARPS_M × WARPS_N subgroups, CM_SHAPE, CM_STAGES, CM_PREFETCH slices
//   in flight) with A = x and B = W loaded VEC halves (1, 4 or 8; K a
//   multiple of it) at a time and staged as they are.

#extension GL_GOOGLE_include_directive : require

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf1 { uint x1[]; };
layout(std430, set = 0, binding = 0) readonly buffer XBuf2 { uvec2 x2[]; };
layout(std430, set = 0, binding = 0) readonly buffer XBuf4 { uvec4 x4[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf1 { uint w1[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf2 { uvec2 w2[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

// The bits of half e of a packed buffer, in the low 16 bits.
#define HALF_BITS(buf, e) (((buf[(e) >> 1u]) >> (16u * ((e) & 1u))) & 0xFFFFu)

#if USE_COOPMAT == 0

vec4 tiled_load_x4(uint e) {
  const uvec2 v = x2[e / 4u];
  return vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
}
vec4 tiled_load_w4(uint e) {
  const uvec2 v = w2[e / 4u];
  return vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
}
float tiled_load_x1(uint e) { return unpackHalf2x16(HALF_BITS(x1, e)).x; }
float tiled_load_w1(uint e) { return unpackHalf2x16(HALF_BITS(w1, e)).x; }

#include "matmul_tiled.glsl"

void main() { tiled_main(); }

#else  // USE_COOPMAT

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

// One global load of VEC halves, staged as it was loaded; the next
// CM_PREFETCH slices' loads in flight while this one multiplies.
#define CM_VEC VEC
#if VEC == 8
#define A_RAW uvec4
#define A_RAW_ZERO uvec4(0u)
#define LOAD_CHUNK(buf1, buf2, buf4, e) buf4[(e) / 8u]
#elif VEC == 4
#define A_RAW uvec2
#define A_RAW_ZERO uvec2(0u)
#define LOAD_CHUNK(buf1, buf2, buf4, e) buf2[(e) / 4u]
#else
#define A_RAW uint
#define A_RAW_ZERO 0u
#define LOAD_CHUNK(buf1, buf2, buf4, e) HALF_BITS(buf1, e)
#endif
#define B_RAW A_RAW
#define B_RAW_ZERO A_RAW_ZERO

#include "coopmat_gemm.glsl"

A_RAW gemm_load_a(uint m, uint k) { return LOAD_CHUNK(x1, x2, x4, m * K + k); }
B_RAW gemm_load_b(uint n, uint k) { return LOAD_CHUNK(w1, w2, w4, n * K + k); }
CHUNK gemm_chunk_a(A_RAW raw) { return raw; }
CHUNK gemm_chunk_b(B_RAW raw) { return raw; }

#endif  // USE_COOPMAT
