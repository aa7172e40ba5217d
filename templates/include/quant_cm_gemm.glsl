// The tensor-core GEMM skeleton of the quantized kernels' prefill:
// y[M×N] = x[M×K] · Wᵀ with x (fp32, binding 0) rounded to fp16 as it is
// staged, y (fp32, binding 2), and W staged through the including template's
// staged_w (binding 1's GGUF blocks dequantized in matmul_quant_cm.comp; the
// fp16 copy of binding 3 in matmul_quant_cm_f16w.comp). The including
// template enables GL_NV_cooperative_matrix, GL_KHR_memory_scope_semantics,
// GL_EXT_shader_explicit_arithmetic_types_float16,
// GL_EXT_control_flow_attributes and GL_KHR_shader_subgroup_basic, declares
// W's buffer, includes this file, then defines staged_w.
//
// A workgroup of WARPS_M × WARPS_N subgroups (32 invocations each)
// computes a TILE_M × TILE_N tile of y; each subgroup holds TILES_M ×
// TILES_N fp32 accumulators of CM_M × CM_N (CM_SHAPE 0: 16×16×16, 1:
// 16×8×16, 2: 16×8×8). Staging: x as vec4 loads (4 consecutive k, one row
// per TILE_K/4 invocations, so a row's loads are contiguous), W as runs of 4
// weights, both stored as two packed half words; rows and columns past M and
// N and k past K are staged as zeros, so partial tiles multiply zeros and
// only the stores are guarded. Shared rows are padded by 8 halves (16 bytes)
// so the 8 rows one matrix load reads at a time fall in different banks. One
// shared buffer: stage, barrier, multiply, barrier.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K (a multiple of 16), CM_SHAPE,
// WARPS_M, WARPS_N. Push constants: M, N, K.

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
#define TILES_M (BM / (WARPS_M * CM_M))
#define TILES_N (BN / (WARPS_N * CM_N))
#define CM_WG (WARPS_M * WARPS_N * 32)
#define S_STRIDE (BK + 8)  // halves per staged row
#define RUNS_PER_ROW (BK / 4)
#define X_PER_THREAD (BM * RUNS_PER_ROW / CM_WG)  // runs of x staged per invocation
#define W_PER_THREAD (BN * RUNS_PER_ROW / CM_WG)  // runs of W

#if (BK % 16) != 0 || (BK % CM_K) != 0 || TILES_M * WARPS_M * CM_M != BM || TILES_N * WARPS_N * CM_N != BN
#error "TILE_K must be a multiple of 16 and of the matrix K, TILE_M/TILE_N multiples of the subgroups' matrices"
#endif
#if (BM * RUNS_PER_ROW) % CM_WG != 0 || (BN * RUNS_PER_ROW) % CM_WG != 0
#error "the workgroup must divide the runs of a staged slice"
#endif

layout(local_size_x = CM_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

// Staged tiles, row-major with S_STRIDE halves per row, 4 halves per uvec2
// (the units a coopMatLoadNV stride and offset count in).
shared uvec2 as_[BM * S_STRIDE / 4];
shared uvec2 bs_[BN * S_STRIDE / 4];
// uvec4 (fp32 bits): a matrix store needs a 16-byte aligned address, which
// only a 16-byte element type guarantees (on the H200 a float array was
// placed 4 bytes off, shifting every stored matrix by one element), and the
// stores take no vec4 arrays.
shared uvec4 cs_[WARPS_M * WARPS_N * CM_M * CM_N / 4];

uvec2 pack4(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }

// The including template's W: weights k..k+3 of row n (both inside W) as
// four fp16 values, packed as pack4 packs them.
uvec2 staged_w(uint n, uint k);

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint warp = gl_SubgroupID;
  const uint wm = warp / WARPS_N;
  const uint wn = warp % WARPS_N;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint m0 = gl_WorkGroupID.y * BM;

  fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> acc[TILES_M * TILES_N];
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0.0);

  for (uint k0 = 0; k0 < K; k0 += BK) {
    // A fixed count per invocation (the tile sizes are multiples of the
    // workgroup's), unrolled so that all loads of a slice are in flight
    // together.
    [[unroll]] for (uint i = 0; i < X_PER_THREAD; ++i) {
      const uint u = tid + i * CM_WG;
      const uint m = u / RUNS_PER_ROW, kq = u % RUNS_PER_ROW;
      const uint k = k0 + 4u * kq;
      const vec4 v = (m0 + m < M && k < K) ? xv[(m0 + m) * (K / 4u) + k / 4u] : vec4(0.0);
      as_[(m * S_STRIDE) / 4u + kq] = pack4(v);
    }
    [[unroll]] for (uint i = 0; i < W_PER_THREAD; ++i) {
      const uint u = tid + i * CM_WG;
      const uint n = u / RUNS_PER_ROW, kq = u % RUNS_PER_ROW;
      const uint k = k0 + 4u * kq;
      bs_[(n * S_STRIDE) / 4u + kq] = (n0 + n < N && k < K) ? staged_w(n0 + n, k) : uvec2(0u);
    }
    barrier();
    [[unroll]] for (uint kk = 0; kk < BK; kk += CM_K) {
      fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K> fa[TILES_M];
      fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N> fb[TILES_N];
      [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
        coopMatLoadNV(fa[i], as_, ((wm * TILES_M + i) * CM_M * S_STRIDE + kk) / 4u, S_STRIDE / 4u, false);
      }
      [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
        coopMatLoadNV(fb[j], bs_, ((wn * TILES_N + j) * CM_N * S_STRIDE + kk) / 4u, S_STRIDE / 4u, true);
      }
      [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
        [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
          acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);
        }
      }
    }
    barrier();
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
