// The scalar (CUDA-core) tiled body of the dense matmuls y[M×N] = x[M×K]·Wᵀ
// (matmul_f32.comp, and matmul_f16.comp with USE_COOPMAT=0). x is M rows of
// K, W is N rows of K, y is M×N fp32, all row-major.
//
// Workgroup (i, j) computes the TILE_M × TILE_N output tile at rows
// j*TILE_M.. and columns i*TILE_N... For each TILE_K slice of K it stages x
// and W in shared memory, k-major (xs[k][m], ws[k][n]), zero-padded past M, N
// and K so partial tiles need no other care; then every invocation
// accumulates a THREAD_M × THREAD_N register tile with FMAs. An invocation
// owns groups of 4 consecutive rows (and columns) strided by 4*threads, so
// its shared reads are aligned vec4 loads and neighbouring invocations read
// neighbouring vec4s.
//
// The includer defines TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N (4 or 8),
// VEC (1: scalar global loads, any K; 4: four consecutive k per load, K a
// multiple of 4), the push constants M, N, K, the output buffer y[], and
//   vec4  tiled_load_x4(uint e), tiled_load_w4(uint e)  // elements e..e+3, e % 4 == 0
//   float tiled_load_x1(uint e), tiled_load_w1(uint e)  // element e
// with e the element index in x or W. Call tiled_main() from main().

#extension GL_EXT_control_flow_attributes : require

#define TMT (TILE_M / THREAD_M)  // invocations along M
#define TNT (TILE_N / THREAD_N)  // invocations along N
#define TILED_WG (TMT * TNT)
#define XS_STRIDE (TILE_M + 4)  // floats per k row; +4 keeps vec4 alignment and spreads banks
#define WS_STRIDE (TILE_N + 4)

#if (THREAD_M % 4) != 0 || (THREAD_N % 4) != 0 || (TILE_M % (4 * TMT)) != 0 || (TILE_N % (4 * TNT)) != 0
#error "THREAD_M and THREAD_N must be multiples of 4 dividing TILE_M and TILE_N"
#endif
#if (TILE_K % 4) != 0 || (VEC != 1 && VEC != 4)
#error "TILE_K must be a multiple of 4 and VEC 1 or 4"
#endif

layout(local_size_x = TILED_WG, local_size_y = 1, local_size_z = 1) in;

shared vec4 xs[TILE_K * XS_STRIDE / 4];
shared vec4 ws[TILE_K * WS_STRIDE / 4];

void tiled_stage(uint m0, uint n0, uint k0, uint tid) {
#if VEC == 4
  for (uint u = tid; u < TILE_M * (TILE_K / 4u); u += TILED_WG) {
    const uint kq = u % (TILE_K / 4u);  // consecutive invocations: consecutive k (coalesced)
    const uint m = u / (TILE_K / 4u);
    const uint gm = m0 + m, gk = k0 + 4u * kq;
    const vec4 v = (gm < M && gk < K) ? tiled_load_x4(gm * K + gk) : vec4(0.0);
    [[unroll]] for (uint e = 0; e < 4u; ++e) {
      const uint s = (4u * kq + e) * XS_STRIDE + m;
      xs[s / 4u][s % 4u] = v[e];
    }
  }
  for (uint u = tid; u < TILE_N * (TILE_K / 4u); u += TILED_WG) {
    const uint kq = u % (TILE_K / 4u);
    const uint n = u / (TILE_K / 4u);
    const uint gn = n0 + n, gk = k0 + 4u * kq;
    const vec4 v = (gn < N && gk < K) ? tiled_load_w4(gn * K + gk) : vec4(0.0);
    [[unroll]] for (uint e = 0; e < 4u; ++e) {
      const uint s = (4u * kq + e) * WS_STRIDE + n;
      ws[s / 4u][s % 4u] = v[e];
    }
  }
#else
  for (uint u = tid; u < TILE_M * TILE_K; u += TILED_WG) {
    const uint kk = u % TILE_K;
    const uint m = u / TILE_K;
    const uint gm = m0 + m, gk = k0 + kk;
    const uint s = kk * XS_STRIDE + m;
    xs[s / 4u][s % 4u] = (gm < M && gk < K) ? tiled_load_x1(gm * K + gk) : 0.0;
  }
  for (uint u = tid; u < TILE_N * TILE_K; u += TILED_WG) {
    const uint kk = u % TILE_K;
    const uint n = u / TILE_K;
    const uint gn = n0 + n, gk = k0 + kk;
    const uint s = kk * WS_STRIDE + n;
    ws[s / 4u][s % 4u] = (gn < N && gk < K) ? tiled_load_w1(gn * K + gk) : 0.0;
  }
#endif
}

void tiled_main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tx = tid % TNT;
  const uint ty = tid / TNT;
  const uint n0 = gl_WorkGroupID.x * TILE_N;
  const uint m0 = gl_WorkGroupID.y * TILE_M;

  vec4 acc[THREAD_M][THREAD_N / 4];
  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    [[unroll]] for (uint j = 0; j < THREAD_N / 4; ++j) acc[i][j] = vec4(0.0);
  }

  for (uint k0 = 0; k0 < K; k0 += TILE_K) {
    tiled_stage(m0, n0, k0, tid);
    barrier();
    for (uint k = 0; k < TILE_K; ++k) {
      vec4 a[THREAD_M / 4];
      vec4 b[THREAD_N / 4];
      [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) a[g] = xs[k * (XS_STRIDE / 4u) + g * TMT + ty];
      [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) b[h] = ws[k * (WS_STRIDE / 4u) + h * TNT + tx];
      [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) {
        [[unroll]] for (uint r = 0; r < 4u; ++r) {
          [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) acc[4 * g + r][h] = fma(vec4(a[g][r]), b[h], acc[4 * g + r][h]);
        }
      }
    }
    barrier();
  }

  [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) {
    [[unroll]] for (uint r = 0; r < 4u; ++r) {
      const uint m = m0 + 4u * (g * TMT + ty) + r;
      if (m >= M) continue;
      [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) {
        const uint n = n0 + 4u * (h * TNT + tx);
        [[unroll]] for (uint c = 0; c < 4u; ++c) {
          if (n + c < N) y[m * N + n + c] = acc[4 * g + r][h][c];
        }
      }
    }
  }
}
