#version 450
// The third dispatch of the quantized prefill's int8 tensor-core path
// (DEQUANT_STAGE=3, kernels/quant_coopmat.hpp): y[M×N] = x · Wᵀ from the
// 8-bit codes and per-32 scales that quantize_x_q8.comp and requant_w_q8.comp
// wrote into the scratch binding 3 (their headers give the layout). For each
// 32 values of K (a group g) the codes are multiplied on int8 cooperative
// matrices (GL_NV_integer_cooperative_matrix, 16×16×32, int32 accumulators)
// and the group's int32 product P enters y's fp32 accumulator as
//   y += dx[m][g] * a[n][g] * P[m][n]  -  sx[m][g] * b[n][g]
// (x ≈ dx*cx, sx = dx * the sum of x's codes; W = a*cw - b), the scales
// applied element by element to P converted to fp32. The scale matrices are
// broadcasts: a column of 16 dx (or a row of 16 a) loaded with stride 0 from
// shared memory, so that every element of the product meets its own row's
// and column's scale with no knowledge of how the matrices' elements are
// spread over the subgroup.
//
// A workgroup of WARPS_M × WARPS_N subgroups computes a TILE_M × TILE_N tile
// of y; each subgroup TILES_M × TILES_N accumulators of 16×16. Every TILE_K
// slice (a multiple of 32) of the codes is staged in shared memory as
// 16-byte chunks (rows padded by 16 bytes, which keeps the 8 rows one
// matrix load reads in distinct banks), with its groups' scales; the next
// slice's loads are in flight in registers while a slice is multiplied.
// Codes and scales past M, N and K stage as zeros, so only stores are
// guarded (include/coopmat_store.glsl).
//
// The offset term is compiled only for the block types whose weights carry
// one (QB_HAS_OFFSET: Q4_K, Q5_K); requant_w_q8.comp writes b = 0 for the
// others.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K, WARPS_M, WARPS_N.
// Semantics: QTYPE. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_KHR_shader_subgroup_basic : require

#define CM_M 16
#define CM_N 16
#define CM_K 32
#define BM TILE_M
#define BN TILE_N
#define BK TILE_K
#define TILES_M (TILE_M / (WARPS_M * CM_M))
#define TILES_N (TILE_N / (WARPS_N * CM_N))
#define CM_SUBGROUPS (WARPS_M * WARPS_N)
#define CM_WG (CM_SUBGROUPS * 32)
#define S_VEC ((BK + 16) / 16)      // 16-byte chunks per staged row
#define CHUNKS_PER_ROW (BK / 16)
#define A_CHUNKS (BM * CHUNKS_PER_ROW)
#define B_CHUNKS (BN * CHUNKS_PER_ROW)
#define A_PER_THREAD (A_CHUNKS / CM_WG)
#define B_PER_THREAD (B_CHUNKS / CM_WG)
#define GROUPS (BK / CM_K)          // 32-value groups per slice
#define XG_PER_THREAD ((BM * GROUPS + CM_WG - 1) / CM_WG)
#define WG_PER_THREAD ((BN * GROUPS + CM_WG - 1) / CM_WG)

#if (BK % CM_K) != 0 || TILES_M * WARPS_M * CM_M != BM || TILES_N * WARPS_N * CM_N != BN || \
    (A_CHUNKS % CM_WG) != 0 || (B_CHUNKS % CM_WG) != 0
#error "TILE_K must be a multiple of 32, TILE_M/TILE_N of the subgroups' 16×16 blocks, the chunks split evenly"
#endif

layout(local_size_x = CM_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };
layout(std430, set = 0, binding = 3) readonly buffer Q8Vectors { uvec4 q8_vectors[]; };
layout(std430, set = 0, binding = 3) readonly buffer Q8Scales { vec2 q8_scales[]; };

#include "coopmat_store.glsl"
#include "quant_block.glsl"  // QB_HAS_OFFSET (its weight-buffer binding is not read here)

shared uvec4 as_[BM * S_VEC];
shared uvec4 bs_[BN * S_VEC];
// The slice's scales, group-major (group g's rows at g*BM, g*BN), so that a
// block's 16 rows are 16 consecutive floats: x's dx and sx, W's a and b. As
// uvec4 (fp32 bits): matrix loads take no vec4 arrays and need 16-byte
// aligned addresses (include/coopmat_store.glsl).
shared uvec4 xd_[GROUPS * BM / 4];
shared uvec4 xs_[GROUPS * BM / 4];
shared uvec4 wa_[GROUPS * BN / 4];
shared uvec4 wb_[GROUPS * BN / 4];

// Chunk c of a slice from column k0: x's codes of row m0 + c/CHUNKS_PER_ROW,
// W's of row n0 + ..., or zeros past the matrix.
uvec4 fetch_a(uint c, uint m0, uint k0) {
  const uint row = c / CHUNKS_PER_ROW, k = k0 + (c % CHUNKS_PER_ROW) * 16u;
  return (m0 + row < M && k < K) ? q8_vectors[(2u * N * K + (m0 + row) * K + k) / 16u] : uvec4(0u);
}
uvec4 fetch_b(uint c, uint n0, uint k0) {
  const uint row = c / CHUNKS_PER_ROW, k = k0 + (c % CHUNKS_PER_ROW) * 16u;
  return (n0 + row < N && k < K) ? q8_vectors[((n0 + row) * K + k) / 16u] : uvec4(0u);
}
// Scale pair e of a slice (group e / rows, row e % rows), or zeros.
vec2 fetch_x_scales(uint e, uint m0, uint k0) {
  const uint row = e % BM, group = k0 / 32u + e / BM;
  return (e < BM * GROUPS && m0 + row < M && group < K / 32u)
             ? q8_scales[(2u * N * K + M * K) / 8u + group * M + m0 + row]
             : vec2(0.0);
}
vec2 fetch_w_scales(uint e, uint n0, uint k0) {
  const uint row = e % BN, group = k0 / 32u + e / BN;
  return (e < BN * GROUPS && n0 + row < N && group < K / 32u)
             ? q8_scales[(N * K) / 8u + group * N + n0 + row]
             : vec2(0.0);
}

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>

// A slice's scale pairs from register set `regs` (`per` an invocation, of
// `rows` * GROUPS) into shared `scales` (dx or a) and, with an offset term,
// `offsets` (sx or b).
#if QB_HAS_OFFSET
#define STAGE_OFFSET(offsets, e, v) offsets[(e) / 4u][(e) % 4u] = floatBitsToUint(v)
#else
#define STAGE_OFFSET(offsets, e, v)
#endif
#define STAGE_SCALES(regs, per, rows, scales, offsets)             \
  [[unroll]] for (uint i = 0; i < (per); ++i) {                    \
    const uint e = tid + i * CM_WG;                                \
    if (e < (rows) * GROUPS) {                                     \
      scales[e / 4u][e % 4u] = floatBitsToUint(regs[i].x);         \
      STAGE_OFFSET(offsets, e, regs[i].y);                         \
    }                                                              \
  }

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint wm = gl_SubgroupID / WARPS_N;
  const uint wn = gl_SubgroupID % WARPS_N;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint m0 = gl_WorkGroupID.y * BM;

  ACC acc[TILES_M * TILES_N];
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = ACC(0.0);
  icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> izero = icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0);

  uvec4 ra[A_PER_THREAD], rb[B_PER_THREAD];
  vec2 rx[XG_PER_THREAD], rw[WG_PER_THREAD];
  const uint slices = (K + BK - 1u) / BK;

#define FETCH(s)                                                                                          \
  {                                                                                                       \
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) ra[i] = fetch_a(tid + i * CM_WG, m0, (s) * BK);    \
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) rb[i] = fetch_b(tid + i * CM_WG, n0, (s) * BK);    \
    [[unroll]] for (uint i = 0; i < XG_PER_THREAD; ++i) rx[i] = fetch_x_scales(tid + i * CM_WG, m0, (s) * BK); \
    [[unroll]] for (uint i = 0; i < WG_PER_THREAD; ++i) rw[i] = fetch_w_scales(tid + i * CM_WG, n0, (s) * BK); \
  }

  FETCH(0u);
  for (uint s = 0; s < slices; ++s) {
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {
      const uint c = tid + i * CM_WG;
      as_[(c / CHUNKS_PER_ROW) * S_VEC + c % CHUNKS_PER_ROW] = ra[i];
    }
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) {
      const uint c = tid + i * CM_WG;
      bs_[(c / CHUNKS_PER_ROW) * S_VEC + c % CHUNKS_PER_ROW] = rb[i];
    }
    STAGE_SCALES(rx, XG_PER_THREAD, BM, xd_, xs_);
    STAGE_SCALES(rw, WG_PER_THREAD, BN, wa_, wb_);
    barrier();
    if (s + 1u < slices) FETCH(s + 1u);
    [[unroll]] for (uint g = 0; g < GROUPS; ++g) {
      icoopmatNV<8, gl_ScopeSubgroup, CM_M, CM_K> fa[TILES_M];
      ACC dx[TILES_M], sx[TILES_M];
      [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
        const uint row = (wm * TILES_M + i) * CM_M;
        coopMatLoadNV(fa[i], as_, row * S_VEC + g * 2u, S_VEC, false);
        // Column-major with stride 0: element (r, c) is the float r of the run.
        coopMatLoadNV(dx[i], xd_, (g * BM + row) / 4u, 0u, true);
        coopMatLoadNV(sx[i], xs_, (g * BM + row) / 4u, 0u, true);
      }
      [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
        const uint col = (wn * TILES_N + j) * CM_N;
        icoopmatNV<8, gl_ScopeSubgroup, CM_K, CM_N> fb;
        coopMatLoadNV(fb, bs_, col * S_VEC + g * 2u, S_VEC, true);
        // Row-major with stride 0: element (r, c) is the float c of the run.
        ACC wa, wb;
        coopMatLoadNV(wa, wa_, (g * BN + col) / 4u, 0u, false);
        coopMatLoadNV(wb, wb_, (g * BN + col) / 4u, 0u, false);
        [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
          ACC p = ACC(coopMatMulAddNV(fa[i], fb, izero));  // not const: glslang made a const conversion a spec-constant op of an undefined id
          const uint t = i * TILES_N + j;
#if QB_HAS_OFFSET
          for (int e = 0; e < p.length(); ++e) acc[t][e] += p[e] * dx[i][e] * wa[e] - sx[i][e] * wb[e];
#else
          for (int e = 0; e < p.length(); ++e) acc[t][e] += p[e] * dx[i][e] * wa[e];
#endif
        }
      }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
      const uint gm = m0 + (wm * TILES_M + i) * CM_M;
      const uint gn = n0 + (wn * TILES_N + j) * CM_N;
      STORE_ACCUMULATOR(acc[i * TILES_N + j], gm, gn);
    }
  }
}
