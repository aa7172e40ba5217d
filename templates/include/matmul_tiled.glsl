// The scalar (CUDA-core) tiled body of the dense matmuls y[M×N] = x[M×K]·Wᵀ
// (matmul_f32.comp, and matmul_f16.comp with USE_COOPMAT=0). x is M rows of
// K, W is N rows of K, y is M×N fp32, all row-major.
//
// Workgroup (i, j) computes the TILE_M × TILE_N output tile at rows
// j*TILE_M.. and columns i*TILE_N... For each TILE_K slice of K it stages x
// and W in shared memory, k-major (xs[k][m], ws[k][n]), zero-padded past K
// and past M and N with VEC=1 (VEC=4 repeats the last row there instead,
// see tiled_fetch) so partial tiles need no other care; then every invocation
// accumulates a THREAD_M × THREAD_N register tile with FMAs. An invocation
// owns groups of 4 consecutive rows (and columns) strided by 4*threads, so
// its shared reads are aligned vec4 loads and neighbouring invocations read
// neighbouring vec4s.
//
// Software pipelining: the global loads of slice s+1 are issued into
// registers before slice s is multiplied, and written to shared memory after
// it, so their latency hides behind the FMAs. TILED_STAGES (defined by the
// kernel's plan: matmul_f32's STAGES parameter, a fixed rule for matmul_f16,
// see kernels/dense_matmul.hpp) is the number of shared buffers: 2 (double
// buffering, one barrier per slice) or 1 (two barriers per slice). The plan
// also defines TILED_UNROLL_K for large K (see below).
//
// Shared rows are not padded; instead the vec4 column of element (k, m) is
// XOR-swizzled by bit 2 of k (index (m/4) ^ (k & 4)), which keeps the
// transposing stores free of bank conflicts (the two k rows written by one
// warp land in opposite halves of the banks) while each k row stays a
// permutation of itself for the vec4 reads. TILE_M and TILE_N must be at
// least 32 (8 vec4s per row).
//
// Invocation layout (LANES_N, optional, default 32): invocation (tx, ty) of
// the TNT × TMT grid takes output column groups tx + h*TNT and row groups
// ty + g*TMT. By default tx = tid % TNT (each aligned group of 32, an NVIDIA
// subgroup, spans one or more whole rows of the grid). LANES_N = 8 (when
// TNT > 8) makes each group of 32 an 8 × 4 block of the grid instead: per k
// its shared reads then touch 8 column vec4s (128 bytes, one wavefront) and
// 4 row vec4s (one wavefront) rather than 32 column vec4s (four wavefronts)
// and 1 row vec4. For an 8×4 register tile that is 3 wavefronts per k
// instead of 6, against 32 FMA instructions (8 clocks of an SM's 4 FMA
// pipes per subgroup): the shared-memory pipe (one wavefront, 128 bytes,
// per clock) drops from 75% to 38% of the FMA rate. A permutation of the
// invocations only, so correct for any subgroup size.
//
// Global loads (VEC == 4): pairs of invocations read the 32 bytes of 8
// consecutive k of one row, 16 rows per subgroup of 32.
//
// The includer defines TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N (4 or 8),
// VEC (1: scalar global loads, any K; 4: four consecutive k per load, K a
// multiple of 4), TILED_STAGES (1 or 2), optionally TILED_UNROLL_K and
// LANES_N, the
// push constants M, N, K, the
// output buffer y[], and
//   vec4  tiled_load_x4(uint e), tiled_load_w4(uint e)  // elements e..e+3, e % 4 == 0
//   float tiled_load_x1(uint e), tiled_load_w1(uint e)  // element e
// with e the element index in x or W. Call tiled_main() from main().

#extension GL_EXT_control_flow_attributes : require

#ifndef TILED_STAGES
#define TILED_STAGES 1
#endif

#define TMT (TILE_M / THREAD_M)  // invocations along M
#define TNT (TILE_N / THREAD_N)  // invocations along N
#define TILED_WG (TMT * TNT)
#define XS_ROW (TILE_M / 4)  // vec4s per k row
#define WS_ROW (TILE_N / 4)
#define XS_SLICE (TILE_K * XS_ROW)  // vec4s per stage
#define WS_SLICE (TILE_K * WS_ROW)

#if (THREAD_M % 4) != 0 || (THREAD_N % 4) != 0 || (TILE_M % (4 * TMT)) != 0 || (TILE_N % (4 * TNT)) != 0
#error "THREAD_M and THREAD_N must be multiples of 4 dividing TILE_M and TILE_N"
#endif
#if (TILE_K % 8) != 0 || (VEC != 1 && VEC != 4) || TILE_M < 32 || TILE_N < 32
#error "TILE_K must be a multiple of 8, VEC 1 or 4, TILE_M and TILE_N at least 32"
#endif
#if TILED_STAGES != 1 && TILED_STAGES != 2
#error "TILED_STAGES must be 1 or 2"
#endif
#ifndef LANES_N
#define LANES_N 32
#endif
#if LANES_N < TNT && (LANES_N != 8 || (TNT % 8) != 0 || (TMT % 4) != 0)
#error "LANES_N must be 8 (with TILE_N/THREAD_N a multiple of 8 and TILE_M/THREAD_M of 4) or at least TILE_N/THREAD_N"
#endif

layout(local_size_x = TILED_WG, local_size_y = 1, local_size_z = 1) in;

shared vec4 xs[TILED_STAGES * XS_SLICE];
shared vec4 ws[TILED_STAGES * WS_SLICE];

// Index of the vec4 holding column group q (= m / 4) of k row k.
#define TILED_SWZ(k, q) ((q) ^ ((k) & 4u))

// TILED_UNROLL_K (set by the kernel's plan for large K) unrolls the K loop
// of the multiply in SPIR-V: 15% faster on NVIDIA (whose driver leaves the
// loop rolled), but 3-5 times the code, which the CPU driver of the CI gate
// compiles several times slower; the small check shapes run the same loop
// rolled.
#ifdef TILED_UNROLL_K
#define TILED_K_UNROLL [[unroll]]
#else
#define TILED_K_UNROLL
#endif

vec4 tiled_acc[THREAD_M][THREAD_N / 4];

#if VEC == 4
#define X_UNITS (TILE_M * (TILE_K / 4))  // vec4 loads per slice
#define W_UNITS (TILE_N * (TILE_K / 4))
#define X_REGS ((X_UNITS + TILED_WG - 1) / TILED_WG)
#define W_REGS ((W_UNITS + TILED_WG - 1) / TILED_WG)
vec4 tiled_rx[X_REGS];
vec4 tiled_rw[W_REGS];

// Load unit u of a rows × TILE_K slice: row, and first k of its 4.
uvec2 tiled_unit(uint u, uint rows) {
  const uint r = u >> 1u;
  return uvec2(r % rows, 4u * (2u * (r / rows) + (u & 1u)));
}

// Global -> registers: the slice starting at k0, held until tiled_store.
// Rows past M (columns past N) reread row M - 1 (N - 1): they only feed
// outputs that are never written, so they need no zeros. Only k past K must
// read as zero, since those terms would add to real outputs; a slice wholly
// inside K (all but a partial last one: a uniform branch) therefore loads
// without per-element selects, and a loop-invariant row offset plus k0 is
// all its address arithmetic. Load units past the slice (u >= X_UNITS, only
// where the invocations do not divide it) are never stored: they load
// element 0. No branches per load, so the unrolled loads stay one basic
// block.
void tiled_fetch(uint m0, uint n0, uint k0, uint tid) {
  if (k0 + TILE_K <= K) {
    [[unroll]] for (uint i = 0; i < X_REGS; ++i) {
      const uint u = tid + i * TILED_WG;
      const uvec2 p = tiled_unit(u, TILE_M);
      const uint e = min(m0 + p.x, M - 1u) * K + p.y + k0;
      tiled_rx[i] = tiled_load_x4(X_UNITS % TILED_WG == 0 || u < X_UNITS ? e : 0u);
    }
    [[unroll]] for (uint i = 0; i < W_REGS; ++i) {
      const uint u = tid + i * TILED_WG;
      const uvec2 p = tiled_unit(u, TILE_N);
      const uint e = min(n0 + p.x, N - 1u) * K + p.y + k0;
      tiled_rw[i] = tiled_load_w4(W_UNITS % TILED_WG == 0 || u < W_UNITS ? e : 0u);
    }
    return;
  }
  [[unroll]] for (uint i = 0; i < X_REGS; ++i) {
    const uint u = tid + i * TILED_WG;
    const uvec2 p = tiled_unit(u, TILE_M);
    const uint gk = k0 + p.y;
    const bool inside = (X_UNITS % TILED_WG == 0 || u < X_UNITS) && gk < K;
    const vec4 v = tiled_load_x4(inside ? min(m0 + p.x, M - 1u) * K + gk : 0u);
    tiled_rx[i] = inside ? v : vec4(0.0);
  }
  [[unroll]] for (uint i = 0; i < W_REGS; ++i) {
    const uint u = tid + i * TILED_WG;
    const uvec2 p = tiled_unit(u, TILE_N);
    const uint gk = k0 + p.y;
    const bool inside = (W_UNITS % TILED_WG == 0 || u < W_UNITS) && gk < K;
    const vec4 v = tiled_load_w4(inside ? min(n0 + p.x, N - 1u) * K + gk : 0u);
    tiled_rw[i] = inside ? v : vec4(0.0);
  }
}

// Registers -> shared buffer `buf`, transposed to k-major.
void tiled_store(uint buf, uint m0, uint n0, uint k0, uint tid) {
  [[unroll]] for (uint i = 0; i < X_REGS; ++i) {
    const uint u = tid + i * TILED_WG;
    if (X_UNITS % TILED_WG == 0 || u < X_UNITS) {
      const uvec2 p = tiled_unit(u, TILE_M);
      [[unroll]] for (uint e = 0; e < 4u; ++e) {
        const uint k = p.y + e;
        xs[buf * XS_SLICE + k * XS_ROW + TILED_SWZ(k, p.x / 4u)][p.x % 4u] = tiled_rx[i][e];
      }
    }
  }
  [[unroll]] for (uint i = 0; i < W_REGS; ++i) {
    const uint u = tid + i * TILED_WG;
    if (W_UNITS % TILED_WG == 0 || u < W_UNITS) {
      const uvec2 p = tiled_unit(u, TILE_N);
      [[unroll]] for (uint e = 0; e < 4u; ++e) {
        const uint k = p.y + e;
        ws[buf * WS_SLICE + k * WS_ROW + TILED_SWZ(k, p.x / 4u)][p.x % 4u] = tiled_rw[i][e];
      }
    }
  }
}

#else  // VEC == 1: scalar loads (K not a multiple of 4, a rare case) go
       // straight to shared memory in loops, without the register stage.

void tiled_fetch(uint m0, uint n0, uint k0, uint tid) {}

void tiled_store(uint buf, uint m0, uint n0, uint k0, uint tid) {
  for (uint u = tid; u < TILE_M * TILE_K; u += TILED_WG) {
    const uint k = u % TILE_K, m = u / TILE_K;  // consecutive invocations: consecutive k
    const uint gm = m0 + m, gk = k0 + k;
    xs[buf * XS_SLICE + k * XS_ROW + TILED_SWZ(k, m / 4u)][m % 4u] = (gm < M && gk < K) ? tiled_load_x1(gm * K + gk) : 0.0;
  }
  for (uint u = tid; u < TILE_N * TILE_K; u += TILED_WG) {
    const uint k = u % TILE_K, n = u / TILE_K;
    const uint gn = n0 + n, gk = k0 + k;
    ws[buf * WS_SLICE + k * WS_ROW + TILED_SWZ(k, n / 4u)][n % 4u] = (gn < N && gk < K) ? tiled_load_w1(gn * K + gk) : 0.0;
  }
}

#endif

// The register-tile FMAs over shared buffer `buf`.
void tiled_multiply(uint buf, uint tx, uint ty) {
  TILED_K_UNROLL for (uint k = 0; k < TILE_K; ++k) {
    vec4 a[THREAD_M / 4];
    vec4 b[THREAD_N / 4];
    [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) a[g] = xs[buf * XS_SLICE + k * XS_ROW + TILED_SWZ(k, g * TMT + ty)];
    [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) b[h] = ws[buf * WS_SLICE + k * WS_ROW + TILED_SWZ(k, h * TNT + tx)];
    [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) {
      [[unroll]] for (uint r = 0; r < 4u; ++r) {
        [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) {
          tiled_acc[4 * g + r][h] = fma(vec4(a[g][r]), b[h], tiled_acc[4 * g + r][h]);
        }
      }
    }
  }
}

void tiled_main() {
  const uint tid = gl_LocalInvocationID.x;
#if LANES_N < TNT
  // Group of 32 `grp` is the 8 × 4 block (grp % (TNT/8), grp / (TNT/8)).
  const uint lane = tid % 32u, grp = tid / 32u;
  const uint tx = (grp % (TNT / 8u)) * 8u + lane % 8u;
  const uint ty = (grp / (TNT / 8u)) * 4u + lane / 8u;
#else
  const uint tx = tid % TNT;
  const uint ty = tid / TNT;
#endif
  const uint n0 = gl_WorkGroupID.x * TILE_N;
  const uint m0 = gl_WorkGroupID.y * TILE_M;

  [[unroll]] for (uint i = 0; i < THREAD_M; ++i) {
    [[unroll]] for (uint j = 0; j < THREAD_N / 4; ++j) tiled_acc[i][j] = vec4(0.0);
  }

  // Slice s is stored to shared buffer s % TILED_STAGES at the top of
  // iteration s, from the registers its loads went to during iteration
  // s - 1. With two buffers the one barrier per iteration suffices: a store
  // to buffer s % 2 follows iteration s - 1's barrier, which every
  // invocation passed after its multiply of slice s - 2 from that buffer.
  const uint slices = (K + TILE_K - 1u) / TILE_K;
  tiled_fetch(m0, n0, 0u, tid);
  for (uint s = 0; s < slices; ++s) {
    const uint buf = TILED_STAGES == 2 ? (s & 1u) : 0u;
    tiled_store(buf, m0, n0, s * TILE_K, tid);
    barrier();
    if (s + 1u < slices) tiled_fetch(m0, n0, (s + 1u) * TILE_K, tid);
    tiled_multiply(buf, tx, ty);
#if TILED_STAGES == 1
    barrier();
#endif
  }

  [[unroll]] for (uint g = 0; g < THREAD_M / 4; ++g) {
    [[unroll]] for (uint r = 0; r < 4u; ++r) {
      const uint m = m0 + 4u * (g * TMT + ty) + r;
      if (m >= M) continue;
      [[unroll]] for (uint h = 0; h < THREAD_N / 4; ++h) {
        const uint n = n0 + 4u * (h * TNT + tx);
        [[unroll]] for (uint c = 0; c < 4u; ++c) {
          if (n + c < N) y[m * N + n + c] = tiled_acc[4 * g + r][h][c];
        }
      }
    }
  }
}
