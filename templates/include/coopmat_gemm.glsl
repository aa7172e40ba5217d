// The tensor-core GEMM skeleton of matmul_f16 (USE_COOPMAT=1) and of the
// quantized kernels' prefill (matmul_quant_cm.comp, matmul_quant_cm_f16w.comp):
// y[M×N] = A[M×K] · Bᵀ (B is N rows of K), A and B staged in shared memory
// as fp16 and multiplied through GL_NV_cooperative_matrix into fp32
// accumulators; y fp32, all row-major.
//
// A workgroup of WARPS_M × WARPS_N subgroups (32 invocations each) computes
// a TILE_M × TILE_N tile of y; each subgroup holds TILES_M × TILES_N fp32
// accumulators of CM_M × CM_N (TILES_M = TILE_M/(WARPS_M*CM_M), TILES_N =
// TILE_N/(WARPS_N*CM_N); CM_SHAPE 0: 16×16×16, 1: 16×8×16, 2: 16×8×8).
// Every TILE_K slice of K is staged in chunks of CM_VEC halves, zero past M,
// N and K, so partial tiles multiply zeros and only the stores are guarded.
// CM_PREFETCH=P > 0: the global loads of the next P slices are in flight
// (in registers, as the including template's raw type) while the current
// slice is multiplied, and are turned into halves only when staged: one
// slice in flight per workgroup leaves the loop waiting on the loads'
// latency (measurements/nvidia-h200/session39/f16_ladder/), more hold more
// registers. CM_STAGES=1: one
// shared buffer (stage, barrier, multiply, barrier); CM_STAGES=2: two, one
// barrier per slice. CM_PREFETCH=0 (one buffer): each slice is loaded and
// staged at its turn, which holds fewer registers; other workgroups on the
// SM overlap one's loads with their products. Shared rows are padded by 8 halves (16 bytes), which keeps the 8
// rows that one matrix load reads at a time in distinct banks. Accumulators
// whose block lies inside y (and N % 4 == 0, with Y_F16 N % 8 == 0: rows
// 16-byte aligned) are stored directly; the others go through a
// per-subgroup shared scratch and guarded stores.
//
// The including template enables GL_NV_cooperative_matrix,
// GL_KHR_memory_scope_semantics,
// GL_EXT_shader_explicit_arithmetic_types_float16,
// GL_EXT_control_flow_attributes and GL_KHR_shader_subgroup_basic; declares
// the push constants M, N, K and `float y[]`; defines before including
//   TILE_M, TILE_N, TILE_K, CM_SHAPE, WARPS_M, WARPS_N, CM_STAGES, CM_PREFETCH,
//   CM_VEC          halves per chunk: 1, 4 or 8 (K a multiple of it),
//   A_RAW, B_RAW    what one chunk's global load of A or B returns,
//   A_RAW_ZERO, B_RAW_ZERO  a raw value that stages as zeros,
//   Y_F16           (optional) y is `float16_t y[]`: the fp32 accumulators
//                   are rounded to fp16 as they are stored;
// and defines after including
//   A_RAW gemm_load_a(uint m, uint k), B_RAW gemm_load_b(uint n, uint k):
//       row m of A (row n of B) from column k, inside the matrix;
//   CHUNK gemm_chunk_a(A_RAW), CHUNK gemm_chunk_b(B_RAW): those CM_VEC
//       values as halves (CHUNK: uvec4 for 8, uvec2 for 4, the bits of one
//       half in the low 16 bits of a uint for 1).

#if CM_SHAPE == 0
#define CM_M 16
#define CM_N 16
#define CM_K 16
#elif CM_SHAPE == 1
#define CM_M 16
#define CM_N 8
#define CM_K 16
#else
#define CM_M 16
#define CM_N 8
#define CM_K 8
#endif

#define BM TILE_M
#define BN TILE_N
#define BK TILE_K
#define TILES_M (TILE_M / (WARPS_M * CM_M))
#define TILES_N (TILE_N / (WARPS_N * CM_N))
#define CM_WG (WARPS_M * WARPS_N * 32)
#define S_STRIDE (BK + 8)  // halves per staged row: 16-byte aligned rows, banks spread
#define CHUNKS_PER_ROW (BK / CM_VEC)
#define A_CHUNKS (BM * CHUNKS_PER_ROW)
#define B_CHUNKS (BN * CHUNKS_PER_ROW)
#define A_PER_THREAD ((A_CHUNKS + CM_WG - 1) / CM_WG)
#define B_PER_THREAD ((B_CHUNKS + CM_WG - 1) / CM_WG)

#if (BK % CM_K) != 0 || (BK % CM_VEC) != 0 || TILES_M * WARPS_M * CM_M != BM || TILES_N * WARPS_N * CM_N != BN
#error "TILE_K must be a multiple of the matrix K and of CM_VEC, TILE_M/TILE_N of the subgroups' matrices"
#endif

layout(local_size_x = CM_WG, local_size_y = 1, local_size_z = 1) in;

// The shared element type (SH_UNIT halves each; offsets and strides of the
// shared buffers are counted in those).
#if CM_VEC == 8
#define CHUNK uvec4
#define SH_TYPE uvec4
#define SH_UNIT 8
#elif CM_VEC == 4
#define CHUNK uvec2
#define SH_TYPE uvec2
#define SH_UNIT 4
#else
#define CHUNK uint
#define SH_TYPE float16_t
#define SH_UNIT 1
#endif

#if CM_PREFETCH == 0 && CM_STAGES != 1
#error "CM_PREFETCH=0 stages into one buffer"
#endif
#if (S_STRIDE % 8) != 0 || (CM_K % SH_UNIT) != 0
#error "shared rows and matrix K must be whole chunks"
#endif

A_RAW gemm_load_a(uint m, uint k);
B_RAW gemm_load_b(uint n, uint k);
CHUNK gemm_chunk_a(A_RAW raw);
CHUNK gemm_chunk_b(B_RAW raw);

shared SH_TYPE as_[CM_STAGES * BM * S_STRIDE / SH_UNIT];
shared SH_TYPE bs_[CM_STAGES * BN * S_STRIDE / SH_UNIT];
#define CM_SUBGROUPS (WARPS_M * WARPS_N)
#include "coopmat_store.glsl"

// Store chunk v at half offset s of a shared buffer.
#if CM_VEC == 1
#define STORE_CHUNK(buf, s, v) buf[s] = unpackFloat2x16(v).x
#else
#define STORE_CHUNK(buf, s, v) buf[(s) / SH_UNIT] = v
#endif

// Chunk c of a slice (row c / CHUNKS_PER_ROW, column k0 + its place in the
// row) of A's rows from m0 or B's from n0: loaded, or zero past the matrix
// or the slice.
A_RAW fetch_a(uint c, uint m0, uint k0) {
  const uint row = c / CHUNKS_PER_ROW, k = k0 + (c % CHUNKS_PER_ROW) * CM_VEC;
  return ((A_CHUNKS % CM_WG == 0 || c < A_CHUNKS) && m0 + row < M && k < K) ? gemm_load_a(m0 + row, k) : A_RAW_ZERO;
}
B_RAW fetch_b(uint c, uint n0, uint k0) {
  const uint row = c / CHUNKS_PER_ROW, k = k0 + (c % CHUNKS_PER_ROW) * CM_VEC;
  return ((B_CHUNKS % CM_WG == 0 || c < B_CHUNKS) && n0 + row < N && k < K) ? gemm_load_b(n0 + row, k) : B_RAW_ZERO;
}
// Chunk c as halves into shared buffer b.
void stage_a(uint b, uint c, A_RAW raw) {
  if (A_CHUNKS % CM_WG == 0 || c < A_CHUNKS) {
    STORE_CHUNK(as_, (b * BM + c / CHUNKS_PER_ROW) * S_STRIDE + (c % CHUNKS_PER_ROW) * CM_VEC, gemm_chunk_a(raw));
  }
}
void stage_b(uint b, uint c, B_RAW raw) {
  if (B_CHUNKS % CM_WG == 0 || c < B_CHUNKS) {
    STORE_CHUNK(bs_, (b * BN + c / CHUNKS_PER_ROW) * S_STRIDE + (c % CHUNKS_PER_ROW) * CM_VEC, gemm_chunk_b(raw));
  }
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint warp = gl_SubgroupID;
  const uint wm = warp / WARPS_N;
  const uint wn = warp % WARPS_N;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint m0 = gl_WorkGroupID.y * BM;

  fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> acc[TILES_M * TILES_N];
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0.0);

#if CM_PREFETCH
  // One set of registers per slice in flight.
  A_RAW ra[CM_PREFETCH][A_PER_THREAD];
  B_RAW rb[CM_PREFETCH][B_PER_THREAD];
#endif

  const uint slices = (K + BK - 1u) / BK;

  // Global -> register set p for slice s.
#define FETCH(p, s)                                                                                        \
  {                                                                                                        \
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) ra[p][i] = fetch_a(tid + i * CM_WG, m0, (s) * BK); \
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) rb[p][i] = fetch_b(tid + i * CM_WG, n0, (s) * BK); \
  }
  // Register set p -> shared buffer b.
#define STAGE(p, b)                                                                               \
  {                                                                                               \
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) stage_a((b), tid + i * CM_WG, ra[p][i]);  \
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) stage_b((b), tid + i * CM_WG, rb[p][i]);  \
  }
  // Tensor-core products over shared buffer b.
#define MULTIPLY(b)                                                                                        \
  {                                                                                                        \
    [[unroll]] for (uint kk = 0; kk < BK; kk += CM_K) {                                                    \
      fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K> fa[TILES_M];                                            \
      fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N> fb[TILES_N];                                            \
      [[unroll]] for (uint i = 0; i < TILES_M; ++i)                                                        \
        coopMatLoadNV(fa[i], as_, (((b) * BM + (wm * TILES_M + i) * CM_M) * S_STRIDE + kk) / SH_UNIT,      \
                      S_STRIDE / SH_UNIT, false);                                                          \
      [[unroll]] for (uint j = 0; j < TILES_N; ++j)                                                        \
        coopMatLoadNV(fb[j], bs_, (((b) * BN + (wn * TILES_N + j) * CM_N) * S_STRIDE + kk) / SH_UNIT,      \
                      S_STRIDE / SH_UNIT, true);                                                           \
      [[unroll]] for (uint i = 0; i < TILES_M; ++i) {                                                      \
        [[unroll]] for (uint j = 0; j < TILES_N; ++j)                                                      \
          acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);                      \
      }                                                                                                    \
    }                                                                                                      \
  }

#if CM_PREFETCH
  // Slice s goes to shared buffer s % CM_STAGES at the top of iteration s,
  // from register set s % CM_PREFETCH, whose loads were issued during
  // iteration s - CM_PREFETCH (the sets taken in turn by an unrolled inner
  // loop, so each is indexed by a constant and stays in registers). With
  // two buffers one barrier per iteration suffices: a subgroup staging
  // slice s has passed iteration s-1's barrier, which every subgroup
  // reached only after multiplying slice s-2, the last reader of this
  // buffer.
  [[unroll]] for (uint p = 0; p < CM_PREFETCH; ++p) {
    if (p < slices) FETCH(p, p);
  }
  for (uint s0 = 0; s0 < slices; s0 += CM_PREFETCH) {
    [[unroll]] for (uint p = 0; p < CM_PREFETCH; ++p) {
      const uint s = s0 + p;
      if (s < slices) {
        const uint buf = CM_STAGES == 2 ? (s & 1u) : 0u;
        STAGE(p, buf);
        barrier();
        if (s + CM_PREFETCH < slices) FETCH(p, s + CM_PREFETCH);
        MULTIPLY(buf);
#if CM_STAGES == 1
        barrier();
#endif
      }
    }
  }
#else
  for (uint s = 0; s < slices; ++s) {
    // Each chunk staged as soon as it is loaded: no registers hold a slice.
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) stage_a(0u, tid + i * CM_WG, fetch_a(tid + i * CM_WG, m0, s * BK));
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) stage_b(0u, tid + i * CM_WG, fetch_b(tid + i * CM_WG, n0, s * BK));
    barrier();
    MULTIPLY(0u);
    barrier();
  }
#endif

  // Output: include/coopmat_store.glsl.
  [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
      const uint gm = m0 + (wm * TILES_M + i) * CM_M;
      const uint gn = n0 + (wn * TILES_N + j) * CM_N;
      STORE_ACCUMULATOR(acc[i * TILES_N + j], gm, gn);
    }
  }
}
