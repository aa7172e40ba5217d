#version 450
// matmul_f16: y[M×N] = x[M×K] · Wᵀ with x and W fp16 (W is N rows of K),
// products accumulated in fp32, y fp32; all row-major. The fp16 buffers are
// read as 32-bit words (two halves each; the host pads them to 16 bytes).
//
// USE_COOPMAT=0: the scalar tiled body of templates/include/matmul_tiled.glsl
//   (halves widened to fp32 while staging). Parameters TILE_M, TILE_N,
//   TILE_K, THREAD_M, THREAD_N, VEC (1 or 4 halves per load).
// USE_COOPMAT=1: tensor cores through GL_NV_cooperative_matrix. A workgroup
//   of WARPS_M × WARPS_N subgroups (32 invocations each) computes a
//   TILE_M × TILE_N tile; each subgroup holds TILES_M × TILES_N fp32
//   accumulators of CM_M × CM_N (TILES_M = TILE_M/(WARPS_M*CM_M), TILES_N =
//   TILE_N/(WARPS_N*CM_N); CM_SHAPE 0: 16×16×16, 1: 16×8×16, 2: 16×8×8).
//   Every TILE_K slice of K
//   is staged in shared memory as fp16, zero-padded past M, N and K, so
//   partial tiles multiply zeros; the next slice's global loads are in
//   flight (in registers) while the current slice is multiplied.
//   CM_STAGES=1: one shared buffer (multiply, barrier, store, barrier);
//   CM_STAGES=2: two, one barrier per slice. VEC is 1, 4 or 8 halves per
//   global load (K a multiple of VEC); with 4 or 8 the shared buffers are
//   arrays of those chunks (uvec2, uvec4), so a load is staged with one
//   shared store and the matrices are loaded in units of chunks; rows are
//   padded by 8 halves (16 bytes), which keeps the 8 rows that one matrix
//   load reads at a time in distinct banks. Accumulators whose CM_M × CM_N block lies inside y
//   (and N % 4 == 0, for 16-byte aligned rows) are stored directly; the
//   others go through a per-subgroup shared scratch and guarded stores.

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
#define CHUNKS_PER_ROW (BK / VEC)
#define A_CHUNKS (BM * CHUNKS_PER_ROW)
#define B_CHUNKS (BN * CHUNKS_PER_ROW)
#define A_PER_THREAD ((A_CHUNKS + CM_WG - 1) / CM_WG)
#define B_PER_THREAD ((B_CHUNKS + CM_WG - 1) / CM_WG)

#if (BK % CM_K) != 0 || (BK % VEC) != 0 || TILES_M * WARPS_M * CM_M != BM || TILES_N * WARPS_N * CM_N != BN
#error "TILE_K must be a multiple of the matrix K and of VEC, TILE_M/TILE_N of the subgroups' matrices"
#endif

layout(local_size_x = CM_WG, local_size_y = 1, local_size_z = 1) in;

// One global load of VEC halves, zero when outside the matrix, and the
// shared element type (SH_UNIT halves each; offsets and strides of the
// shared buffers are counted in those).
#if VEC == 8
#define CHUNK uvec4
#define CHUNK_ZERO uvec4(0u)
#define LOAD_CHUNK(buf1, buf2, buf4, e) buf4[(e) / 8u]
#define SH_TYPE uvec4
#define SH_UNIT 8
#elif VEC == 4
#define CHUNK uvec2
#define CHUNK_ZERO uvec2(0u)
#define LOAD_CHUNK(buf1, buf2, buf4, e) buf2[(e) / 4u]
#define SH_TYPE uvec2
#define SH_UNIT 4
#else
#define CHUNK uint
#define CHUNK_ZERO 0u
#define LOAD_CHUNK(buf1, buf2, buf4, e) HALF_BITS(buf1, e)
#define SH_TYPE float16_t
#define SH_UNIT 1
#endif

#if (S_STRIDE % 8) != 0 || (CM_K % SH_UNIT) != 0
#error "shared rows and matrix K must be whole chunks"
#endif

shared SH_TYPE as_[CM_STAGES * BM * S_STRIDE / SH_UNIT];
shared SH_TYPE bs_[CM_STAGES * BN * S_STRIDE / SH_UNIT];
// uvec4 (fp32 bits): a matrix store needs a 16-byte aligned address, which
// only a 16-byte element type guarantees (on the H200 a float array was
// placed 4 bytes off, shifting every stored matrix by one element), and the
// stores take no vec4 arrays.
shared uvec4 cs_[WARPS_M * WARPS_N * CM_M * CM_N / 4];

// Store chunk v at half offset s of a shared buffer.
#if VEC == 1
#define STORE_CHUNK(buf, s, v) buf[s] = unpackFloat2x16(v).x
#else
#define STORE_CHUNK(buf, s, v) buf[(s) / SH_UNIT] = v
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint warp = gl_SubgroupID;
  const uint wm = warp / WARPS_N;
  const uint wn = warp % WARPS_N;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint m0 = gl_WorkGroupID.y * BM;

  fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> acc[TILES_M * TILES_N];
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0.0);

  CHUNK ra[A_PER_THREAD];
  CHUNK rb[B_PER_THREAD];

  const uint slices = (K + BK - 1u) / BK;

  // Global -> registers for slice s.
#define FETCH(s)                                                                         \
  {                                                                                      \
    const uint k0 = (s) * BK;                                                            \
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {                                 \
      const uint c = tid + i * CM_WG;                                                    \
      const uint row = c / CHUNKS_PER_ROW, gk = k0 + (c % CHUNKS_PER_ROW) * VEC;         \
      ra[i] = ((A_CHUNKS % CM_WG == 0 || c < A_CHUNKS) && m0 + row < M && gk < K) ? LOAD_CHUNK(x1, x2, x4, (m0 + row) * K + gk) : CHUNK_ZERO; \
    }                                                                                    \
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) {                                 \
      const uint c = tid + i * CM_WG;                                                    \
      const uint row = c / CHUNKS_PER_ROW, gk = k0 + (c % CHUNKS_PER_ROW) * VEC;         \
      rb[i] = ((B_CHUNKS % CM_WG == 0 || c < B_CHUNKS) && n0 + row < N && gk < K) ? LOAD_CHUNK(w1, w2, w4, (n0 + row) * K + gk) : CHUNK_ZERO; \
    }                                                                                    \
  }
  // Registers -> shared buffer b.
#define STAGE(b)                                                                         \
  {                                                                                      \
    [[unroll]] for (uint i = 0; i < A_PER_THREAD; ++i) {                                 \
      const uint c = tid + i * CM_WG;                                                    \
      if (A_CHUNKS % CM_WG == 0 || c < A_CHUNKS) STORE_CHUNK(as_, ((b) * BM + c / CHUNKS_PER_ROW) * S_STRIDE + (c % CHUNKS_PER_ROW) * VEC, ra[i]); \
    }                                                                                    \
    [[unroll]] for (uint i = 0; i < B_PER_THREAD; ++i) {                                 \
      const uint c = tid + i * CM_WG;                                                    \
      if (B_CHUNKS % CM_WG == 0 || c < B_CHUNKS) STORE_CHUNK(bs_, ((b) * BN + c / CHUNKS_PER_ROW) * S_STRIDE + (c % CHUNKS_PER_ROW) * VEC, rb[i]); \
    }                                                                                    \
  }
  // Tensor-core products over shared buffer b.
#define MULTIPLY(b)                                                                      \
  {                                                                                      \
    [[unroll]] for (uint kk = 0; kk < BK; kk += CM_K) {                                  \
      fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K> fa[TILES_M];                          \
      fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N> fb[TILES_N];                          \
      [[unroll]] for (uint i = 0; i < TILES_M; ++i)                                      \
        coopMatLoadNV(fa[i], as_, (((b) * BM + (wm * TILES_M + i) * CM_M) * S_STRIDE + kk) / SH_UNIT, S_STRIDE / SH_UNIT, false); \
      [[unroll]] for (uint j = 0; j < TILES_N; ++j)                                      \
        coopMatLoadNV(fb[j], bs_, (((b) * BN + (wn * TILES_N + j) * CM_N) * S_STRIDE + kk) / SH_UNIT, S_STRIDE / SH_UNIT, true); \
      [[unroll]] for (uint i = 0; i < TILES_M; ++i) {                                    \
        [[unroll]] for (uint j = 0; j < TILES_N; ++j)                                    \
          acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);   \
      }                                                                                  \
    }                                                                                    \
  }

  // Slice s goes to shared buffer s % CM_STAGES at the top of iteration s,
  // from the registers its loads went to during iteration s - 1 (see
  // templates/include/matmul_tiled.glsl for why one barrier per iteration
  // suffices with two buffers).
  FETCH(0u);
  for (uint s = 0; s < slices; ++s) {
    const uint buf = CM_STAGES == 2 ? (s & 1u) : 0u;
    STAGE(buf);
    barrier();
    if (s + 1u < slices) FETCH(s + 1u);
    MULTIPLY(buf);
#if CM_STAGES == 1
    barrier();
#endif
  }

  // Output: direct stores for blocks inside y with 16-byte aligned rows, a
  // per-subgroup scratch and guarded stores for the rest.
  const uint scratch = warp * (CM_M * CM_N);
  [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
      const uint gm = m0 + (wm * TILES_M + i) * CM_M;
      const uint gn = n0 + (wn * TILES_N + j) * CM_N;
      if (gm + CM_M <= M && gn + CM_N <= N && (N % 4u) == 0u) {
        coopMatStoreNV(acc[i * TILES_N + j], y, gm * N + gn, N, false);
      } else if (gm < M && gn < N) {
        coopMatStoreNV(acc[i * TILES_N + j], cs_, scratch / 4u, CM_N / 4u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = gl_SubgroupInvocationID; e < CM_M * CM_N; e += gl_SubgroupSize) {
          const uint m = gm + e / CM_N, n = gn + e % CM_N;
          if (m < M && n < N) y[m * N + n] = uintBitsToFloat(cs_[(scratch + e) / 4u][(scratch + e) % 4u]);
        }
        subgroupBarrier();
      }
    }
  }
}

#endif  // USE_COOPMAT
