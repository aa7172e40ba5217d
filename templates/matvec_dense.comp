#version 450
// y[M×N] = x[M×K]·Wᵀ for small M (decode) with dense W: the matrix-vector
// space of matmul_f16 and matmul_f32. W is N rows of K (row-major, the GGUF
// layout), x is M rows of K, both fp16 (ELEM_F16=1, widened to fp32) or fp32
// (ELEM_F16=0); products are accumulated in fp32 and y is fp32, M×N.
//
// Decode reads every weight once and does two flops per weight, so the
// kernel is a stream of W: what matters is wide, coalesced loads with many
// of them in flight, not shared-memory reuse. A workgroup computes
// ROWS_PER_WG rows of W (outputs along N) against COLS_PER_PASS rows of x
// (outputs along M). Its invocations are (row group, lane), lane fastest:
// the THREADS_PER_ROW lanes of a row group read consecutive VEC-element
// chunks of a row (neighbouring lanes, neighbouring 16 bytes at VEC 8 fp16
// or VEC 4 fp32), stepping by THREADS_PER_ROW chunks; a row group owns rows
// g, g + G, ... (G = WG_SIZE / THREADS_PER_ROW row groups), so each x chunk
// an invocation loads (from L1: x is small and read by every row group)
// serves all its rows. A step issues the loads of UNROLL chunks of every
// row and column before any arithmetic. The lanes' partial sums are reduced
// with a subgroup shuffle butterfly (a row group lies inside one subgroup:
// THREADS_PER_ROW is at most the smallest subgroup, a constraint).
//
// Rows past N and columns past M read the last row (column) and are not
// stored, so the loads need no branch.
//
// Parameters: WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW, UNROLL, COLS_PER_PASS,
// VEC (elements per load: 8, 4 or 1 for fp16; 4 or 1 for fp32; the widest
// that divides K), SUBGROUP_SIZE (host only). Semantics: ELEM_F16.
// Push constants: M, N, K.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_ROW
#define U UNROLL
#define G (WG_SIZE / T)  // row groups
#define RT (R / G)       // rows per invocation

#if (WG_SIZE % T) != 0 || G < 1 || (R % G) != 0
#error "THREADS_PER_ROW must divide WG_SIZE and the row groups must divide ROWS_PER_WG"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint M; uint N; uint K; };

// A chunk is VEC consecutive elements of a row, loaded as one value of
// CHUNK_T; widen() turns it into VEC floats.
#if ELEM_F16
#if VEC == 8
#define CHUNK_T uvec4
#elif VEC == 4
#define CHUNK_T uvec2
#elif VEC == 1
#define CHUNK_T uint  // the word holding the half; chunk c is half c % 2 of word c / 2
#else
#error "fp16 VEC must be 8, 4 or 1"
#endif
#else
#if VEC == 4
#define CHUNK_T vec4
#elif VEC == 1
#define CHUNK_T float
#else
#error "fp32 VEC must be 4 or 1"
#endif
#endif

layout(std430, set = 0, binding = 0) readonly buffer XBuf { CHUNK_T xs[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf { CHUNK_T ws[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

#if ELEM_F16 && VEC == 1
// Chunk c of the buffer (one half) sits in word c / 2.
#define LOAD(buf, c) buf[(c) >> 1u]
void widen(uint w, uint c, out float f[VEC]) { f[0] = unpackHalf2x16(w)[c & 1u]; }
#elif ELEM_F16
#define LOAD(buf, c) buf[c]
void widen(CHUNK_T w, uint c, out float f[VEC]) {
  [[unroll]] for (uint i = 0u; i < VEC / 2u; ++i) {
    const vec2 h = unpackHalf2x16(w[i]);
    f[2u * i] = h.x;
    f[2u * i + 1u] = h.y;
  }
}
#elif VEC == 4
#define LOAD(buf, c) buf[c]
void widen(vec4 w, uint c, out float f[VEC]) { f[0] = w.x, f[1] = w.y, f[2] = w.z, f[3] = w.w; }
#else
#define LOAD(buf, c) buf[c]
void widen(float w, uint c, out float f[VEC]) { f[0] = w; }
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint g = lid / T, lane = lid % T;
  const uint chunks = K / VEC;  // per row (VEC divides K)
  uint row_at[RT];              // first chunk of each row of this invocation
  uint col_at[C];               // first chunk of each x row
  [[unroll]] for (uint r = 0u; r < RT; ++r) {
    row_at[r] = min(gl_WorkGroupID.x * R + g + r * G, N - 1u) * chunks;
  }
  [[unroll]] for (uint c = 0u; c < C; ++c) col_at[c] = min(gl_WorkGroupID.y * C + c, M - 1u) * chunks;

  float acc[RT][C];
  [[unroll]] for (uint r = 0u; r < RT; ++r) {
    [[unroll]] for (uint c = 0u; c < C; ++c) acc[r][c] = 0.0;
  }

  for (uint base = lane; base < chunks; base += T * U) {
    // All loads of the step first (past the row's end: the last chunk, not
    // added).
    CHUNK_T wv[U][RT], xv[U][C];
    [[unroll]] for (uint u = 0u; u < U; ++u) {
      const uint at = min(base + u * T, chunks - 1u);
      [[unroll]] for (uint r = 0u; r < RT; ++r) wv[u][r] = LOAD(ws, row_at[r] + at);
      [[unroll]] for (uint c = 0u; c < C; ++c) xv[u][c] = LOAD(xs, col_at[c] + at);
    }
    [[unroll]] for (uint u = 0u; u < U; ++u) {
      if (base + u * T < chunks) {
        const uint at = base + u * T;
        float xf[C][VEC];
        [[unroll]] for (uint c = 0u; c < C; ++c) widen(xv[u][c], col_at[c] + at, xf[c]);
        [[unroll]] for (uint r = 0u; r < RT; ++r) {
          float wf[VEC];
          widen(wv[u][r], row_at[r] + at, wf);
          [[unroll]] for (uint c = 0u; c < C; ++c) {
            [[unroll]] for (uint e = 0u; e < VEC; ++e) acc[r][c] = fma(wf[e], xf[c][e], acc[r][c]);
          }
        }
      }
    }
  }

  // The row group's lanes are consecutive invocations of one subgroup.
  [[unroll]] for (uint r = 0u; r < RT; ++r) {
    [[unroll]] for (uint c = 0u; c < C; ++c) {
      for (uint o = T >> 1u; o > 0u; o >>= 1u) acc[r][c] += subgroupShuffleXor(acc[r][c], o);
    }
  }
  if (lane == 0u) {
    [[unroll]] for (uint r = 0u; r < RT; ++r) {
      const uint row = gl_WorkGroupID.x * R + g + r * G;
      [[unroll]] for (uint c = 0u; c < C; ++c) {
        const uint col = gl_WorkGroupID.y * C + c;
        if (row < N && col < M) y[col * N + row] = acc[r][c];
      }
    }
  }
}
