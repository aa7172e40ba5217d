#version 450
// y[M×N] = x[M×K] · Wᵀ for larger M (prefill), W in GGUF rows of the block
// type QTYPE (include/quant_block.glsl: Q4_0, Q8_0, Q5_K or Q6_K); one
// template for all of them, written against the block interface of
// include/quant_words.glsl.
//
// Workgroup (i, j) computes the TILE_M × TILE_N output tile at rows
// j*TILE_M.. of y and columns i*TILE_N... For each TILE_K slice of K it
// stages x[TILE_M][TILE_K] and the dequantized (fp32, bit-exact with the
// reference: `precise` a*q - b) W[TILE_N][TILE_K] in shared memory, k-major,
// then every thread accumulates a THREAD_M × THREAD_N register tile with
// FMAs. A thread's outputs are interleaved (rows ty + i*TMT, columns
// tx + j*TNT) so that shared-memory reads are broadcasts (x) or consecutive
// words (W), and stores of y are coalesced. A slice past K (when TILE_K does
// not divide K) is staged as zeros.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 4), THREAD_M,
// THREAD_N, SUBGROUP_SIZE (host only). Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "quant_block.glsl"

#define TMT (TILE_M / THREAD_M)  // threads along M
#define TNT (TILE_N / THREAD_N)  // threads along N
#define WG (TMT * TNT)
#define XS_STRIDE (TILE_M + 1)
#define WS_STRIDE (TILE_N + 1)

#if (TILE_M % THREAD_M) != 0 || (TILE_N % THREAD_N) != 0 || (TILE_K % 4) != 0
#error "THREAD_M/THREAD_N must divide TILE_M/TILE_N and TILE_K must be a multiple of 4"
#endif

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

#include "matmul_xy.glsl"

shared float xs[TILE_K * XS_STRIDE];
shared float ws[TILE_K * WS_STRIDE];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tx = tid % TNT;
  const uint ty = tid / TNT;
  const uint n0 = gl_WorkGroupID.x * TILE_N;
  const uint m0 = gl_WorkGroupID.y * TILE_M;
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;

  float acc[THREAD_M][THREAD_N];
  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    [[unroll]] for (uint j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0;
  }

  for (uint k0 = 0; k0 < K; k0 += TILE_K) {
    // x tile, transposed to k-major; x rows past M are clamped (never
    // stored). Consecutive threads take consecutive rows so the shared
    // stores do not conflict.
    for (uint u = tid; u < TILE_M * (TILE_K / 4); u += WG) {
      const uint m = u % TILE_M;
      const uint kq = u / TILE_M;
      const uint k = k0 + 4u * kq;
      const vec4 v = k < K ? x4(min(m0 + m, M - 1u) * (K / 4u) + k / 4u) : vec4(0.0);
      xs[(4u * kq + 0u) * XS_STRIDE + m] = v.x;
      xs[(4u * kq + 1u) * XS_STRIDE + m] = v.y;
      xs[(4u * kq + 2u) * XS_STRIDE + m] = v.z;
      xs[(4u * kq + 3u) * XS_STRIDE + m] = v.w;
    }
    // W tile, one run of 4 weights per step; rows past N are clamped.
    for (uint u = tid; u < TILE_N * (TILE_K / 4); u += WG) {
      const uint n = u / (TILE_K / 4);
      const uint kq = u % (TILE_K / 4);
      const uint k = k0 + 4u * kq;
      vec4 w = vec4(0.0);
      if (k < K) {
        vec4 q;
        float a, b;
        qb_run(min(n0 + n, N - 1u) * row_bytes + (k / QB_WEIGHTS) * QB_BYTES, (k % QB_WEIGHTS) / 4u, q, a, b);
        precise const vec4 dq = a * q - b;
        w = dq;
      }
      ws[(4u * kq + 0u) * WS_STRIDE + n] = w.x;
      ws[(4u * kq + 1u) * WS_STRIDE + n] = w.y;
      ws[(4u * kq + 2u) * WS_STRIDE + n] = w.z;
      ws[(4u * kq + 3u) * WS_STRIDE + n] = w.w;
    }
    barrier();

    // Not unrolled here: drivers unroll as they see fit.
    for (uint k = 0; k < TILE_K; ++k) {
      float av[THREAD_M];
      float bv[THREAD_N];
      [[unroll]] for (uint i = 0; i < THREAD_M; ++i) av[i] = xs[k * XS_STRIDE + ty + i * TMT];
      [[unroll]] for (uint j = 0; j < THREAD_N; ++j) bv[j] = ws[k * WS_STRIDE + tx + j * TNT];
      [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
        [[unroll]] for (uint j = 0; j < THREAD_N; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    const uint m = m0 + ty + i * TMT;
    [[unroll]] for (uint j = 0; j < THREAD_N; ++j) {
      const uint n = n0 + tx + j * TNT;
      if (m < M && n < N) store_y(m * N + n, acc[i][j]);
    }
  }
}
