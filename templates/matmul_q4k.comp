#version 450
// y[M×N] = x[M×K] · Wᵀ for larger M (prefill), W in GGUF Q4_K rows.
//
// Workgroup (i, j) computes the TILE_M × TILE_N output tile at rows
// j*TILE_M.. of y and columns i*TILE_N... For each TILE_K slice of K it
// stages x[TILE_M][TILE_K] and the dequantized (fp32) W[TILE_N][TILE_K] in
// shared memory, k-major, then every thread accumulates a THREAD_M × THREAD_N
// register tile with FMAs. A thread's outputs are interleaved (rows ty + i*TMT,
// columns tx + j*TNT) so that shared-memory reads are broadcasts (x) or
// consecutive words (W), and stores of y are coalesced.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (32, or a multiple of 64
// dividing 256), THREAD_M, THREAD_N, SUBGROUP_SIZE (host only).

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "q4k.glsl"

#define TMT (TILE_M / THREAD_M)  // threads along M
#define TNT (TILE_N / THREAD_N)  // threads along N
#define WG (TMT * TNT)
#define XS_STRIDE (TILE_M + 1)
#define WS_STRIDE (TILE_N + 1)

#if (TILE_M % THREAD_M) != 0 || (TILE_N % THREAD_N) != 0 || (256 % TILE_K) != 0 || (TILE_K % 32) != 0
#error "THREAD_M/THREAD_N must divide TILE_M/TILE_N and TILE_K must be 32, 64, 128 or 256"
#endif

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf1 { uint w1[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

shared float xs[TILE_K * XS_STRIDE];
shared float ws[TILE_K * WS_STRIDE];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tx = tid % TNT;
  const uint ty = tid / TNT;
  const uint n0 = gl_WorkGroupID.x * TILE_N;
  const uint m0 = gl_WorkGroupID.y * TILE_M;
  const uint nb = K / 256u;
  const uint row_vec4s = nb * Q4K_BLOCK_VEC4S;

  float acc[THREAD_M][THREAD_N];
  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    [[unroll]] for (uint j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0;
  }

  for (uint k0 = 0; k0 < K; k0 += TILE_K) {
    // x tile, transposed to k-major; x rows past M are clamped (never stored).
    // Consecutive threads take consecutive rows so the shared stores do not
    // conflict.
    for (uint u = tid; u < TILE_M * (TILE_K / 4); u += WG) {
      const uint m = u % TILE_M;
      const uint kq = u / TILE_M;
      const vec4 v = xv[min(m0 + m, M - 1u) * (K / 4u) + k0 / 4u + kq];
      xs[(4u * kq + 0u) * XS_STRIDE + m] = v.x;
      xs[(4u * kq + 1u) * XS_STRIDE + m] = v.y;
      xs[(4u * kq + 2u) * XS_STRIDE + m] = v.z;
      xs[(4u * kq + 3u) * XS_STRIDE + m] = v.w;
    }
    // W tile, dequantized exactly as the reference does: (d*scale)*q -
    // dmin*min, two roundings (precise: no fused multiply-add).
    const uint blk = k0 / 256u;
#if TILE_K == 32
    // One sub-block j: the low or high nibbles of 8 qs words.
    const uint j = (k0 % 256u) / 32u;
    const uint nib_shift = 4u * (j & 1u);
    for (uint u = tid; u < TILE_N * 8u; u += WG) {
      const uint n = u / 8u;
      const uint wl = u % 8u;
      const uint block4 = min(n0 + n, N - 1u) * row_vec4s + blk * Q4K_BLOCK_VEC4S;
      const uvec4 h = w4[block4];
      const vec2 dm = unpackHalf2x16(h.x);
      float sc, mn;
      q4k_scale_min(h, j, sc, mn);
      precise const float d1 = dm.x * sc;
      precise const float m1 = dm.y * mn;
      const uint v = w1[block4 * 4u + Q4K_QS_WORD + (j / 2u) * 8u + wl] >> nib_shift;
      [[unroll]] for (uint e = 0; e < 4u; ++e) {
        precise const float wv = d1 * float((v >> (8u * e)) & 0xFu) - m1;
        ws[(4u * wl + e) * WS_STRIDE + n] = wv;
      }
    }
#else
    // Whole 64-weight chunks: each qs word gives 4 weights of sub-block 2c and
    // 4 of sub-block 2c+1.
    const uint chunk0 = (k0 % 256u) / 64u;
    for (uint u = tid; u < TILE_N * (TILE_K / 8u); u += WG) {
      const uint n = u / (TILE_K / 8u);
      const uint wi = u % (TILE_K / 8u);
      const uint cl = wi / 8u;  // chunk within the tile
      const uint wl = wi % 8u;
      const uint c = chunk0 + cl;
      const uint block4 = min(n0 + n, N - 1u) * row_vec4s + blk * Q4K_BLOCK_VEC4S;
      const uvec4 h = w4[block4];
      const vec2 dm = unpackHalf2x16(h.x);
      float sc_lo, mn_lo, sc_hi, mn_hi;
      q4k_scale_min(h, 2u * c, sc_lo, mn_lo);
      q4k_scale_min(h, 2u * c + 1u, sc_hi, mn_hi);
      precise const float d_lo = dm.x * sc_lo;
      precise const float m_lo = dm.y * mn_lo;
      precise const float d_hi = dm.x * sc_hi;
      precise const float m_hi = dm.y * mn_hi;
      const uint v = w1[block4 * 4u + Q4K_QS_WORD + c * 8u + wl];
      const uint kb = cl * 64u + 4u * wl;
      [[unroll]] for (uint e = 0; e < 4u; ++e) {
        precise const float lo = d_lo * float((v >> (8u * e)) & 0xFu) - m_lo;
        precise const float hi = d_hi * float((v >> (8u * e + 4u)) & 0xFu) - m_hi;
        ws[(kb + e) * WS_STRIDE + n] = lo;
        ws[(kb + 32u + e) * WS_STRIDE + n] = hi;
      }
    }
#endif
    barrier();

    // Not unrolled here: fully unrolling TILE_K steps of a THREAD_M×THREAD_N
    // tile makes SPIR-V that is slow to optimize; drivers unroll as they see
    // fit.
    for (uint k = 0; k < TILE_K; ++k) {
      float a[THREAD_M];
      float bv[THREAD_N];
      [[unroll]] for (uint i = 0; i < THREAD_M; ++i) a[i] = xs[k * XS_STRIDE + ty + i * TMT];
      [[unroll]] for (uint j = 0; j < THREAD_N; ++j) bv[j] = ws[k * WS_STRIDE + tx + j * TNT];
      [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
        [[unroll]] for (uint j = 0; j < THREAD_N; ++j) acc[i][j] = fma(a[i], bv[j], acc[i][j]);
      }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    const uint m = m0 + ty + i * TMT;
    [[unroll]] for (uint j = 0; j < THREAD_N; ++j) {
      const uint n = n0 + tx + j * TNT;
      if (m < M && n < N) y[m * N + n] = acc[i][j];
    }
  }
}
