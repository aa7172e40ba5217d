#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "conv_types.glsl"
// Pointwise (1×1) convolution with bias and an optional ReLU6, as MobileNet
// V2 runs it: NHWC, a matrix product over the P = N·H·W pixels.
//   y[p][co] = act(b[co] + sum over ci of x[p][ci] * w[co][ci])
// with act = min(max(v, 0), 6) when R == 2 (expansion layers) and the
// identity when R == 1 (projection layers): a uniform branch on a push
// constant, taken once per output.
//
// Storage and arithmetic (#defines from the spec, conv_types.glsl): F16
// (fp32 or fp16 buffers), MATH_F16 (fp32 or fp16 accumulators and staged
// tiles). Halves are widened as they are loaded (or staged) and the output
// is rounded once, as it is stored.
//
// Parameters (#defines from the spec):
//   TM, TN   the register tile: TM pixels × TN output channels per invocation,
//            strided by the workgroup's extent so that neighbouring
//            invocations write neighbouring channels
//   VEC      input channels per load: 1, or 4 as one vec4 (needs CI % 4 == 0)
//   STAGED   0: every invocation reads x and w from the buffers (the
//               workgroup is WG_X × WG_Y invocations);
//            1: the workgroup stages a BM × BK slice of x and a BN × BK
//               slice of w in shared memory per step along CI, which its
//               (BN / TN) × (BM / TM) invocations then share
//   SPLIT    1 (with STAGED 0): the workgroup's WG_K invocations split CI,
//            each summing every one of the workgroup's TM × TN outputs over
//            its share, and add their partial sums in shared memory. For
//            few pixels and long CI (the projections at 14×14 and 7×7):
//            the other paths give an invocation all of CI in series, and
//            there are a few dozen workgroups to give it to.
// The workgroup grid is (CO / TILE_N, P / TILE_M), each rounded up.
#if SPLIT
#define WG_N 1
#define WG_M 1
#elif STAGED
#define WG_N (BN / TN)
#define WG_M (BM / TM)
#else
#define WG_N WG_X
#define WG_M WG_Y
#endif
#define TILE_N (WG_N * TN)  // output channels per workgroup
#define TILE_M (WG_M * TM)  // pixels per workgroup
#if SPLIT
layout(local_size_x = WG_K, local_size_y = 1, local_size_z = 1) in;
#else
layout(local_size_x = WG_N, local_size_y = WG_M, local_size_z = 1) in;
#endif

layout(std430, set = 0, binding = 0) readonly buffer restrict XBuffer { SVTYPE x[]; };  // [P][CI]
layout(std430, set = 0, binding = 1) readonly buffer restrict WBuffer { SVTYPE w[]; };  // [CO][CI]
layout(std430, set = 0, binding = 2) readonly buffer restrict BBuffer { SFLOAT b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer restrict YBuffer { SFLOAT y[]; };  // [P][CO]
// The shape, in the spec's order.
layout(push_constant) uniform restrict Shape { uint P, CI, CO, R; } p;

#if VEC == 4
#define COMPONENT(v, c) v[c]
#else
#define COMPONENT(v, c) v
#endif

#if SPLIT
// [output][invocation]: the partial sums, added pairwise in log2(WG_K) steps.
shared AFLOAT partial[TM * TN][WG_K];
#endif

#if STAGED
// [k][m] and [k][n]: the inner loop reads one k row, each invocation its own
// m (n) columns, consecutive invocations consecutive words.
// In the arithmetic's type: widened once as staged, not at every read.
shared AFLOAT xs[BK][BM];
shared AFLOAT ws[BK][BN];

// Row `row0 + r` of a [rows][CI] matrix, the BK columns from k0, into
// tile[.][r]; past the rows or CI it stores zeros, which add nothing.
#define STAGE(tile, source, row0, rows, width)                                             \
  for (uint e = lid; e < (width) * (BK / VEC); e += WG_N * WG_M) {                        \
    const uint r = e / (BK / VEC), kv = e % (BK / VEC), k = k0 + kv * VEC;                 \
    AVTYPE v = AVTYPE(0.0);                                                                \
    if (row0 + r < rows && k < p.CI) v = AVTYPE(source[((row0 + r) * p.CI + k) / VEC]);    \
    [[unroll]] for (uint c = 0u; c < VEC; ++c) tile[kv * VEC + c][r] = COMPONENT(v, c);    \
  }
#endif

#if !STAGED
// One step along CI of the paths that read the buffers directly: word k
// (VEC input channels) of the TM rows of x and the TN rows of w that start
// at xrow and wrow, multiplied into the register tile.
void accumulate(uint k, uint xrow[TM], uint wrow[TN], inout AFLOAT acc[TM][TN]) {
  AVTYPE a[TM], wv[TN];
  [[unroll]] for (uint i = 0u; i < TM; ++i) a[i] = AVTYPE(x[xrow[i] + k]);
  [[unroll]] for (uint j = 0u; j < TN; ++j) wv[j] = AVTYPE(w[wrow[j] + k]);
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      [[unroll]] for (uint e = 0u; e < VEC; ++e) acc[i][j] = fma(COMPONENT(a[i], e), COMPONENT(wv[j], e), acc[i][j]);
    }
  }
}
#endif

#if SPLIT
void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint n0 = gl_WorkGroupID.x * TN, m0 = gl_WorkGroupID.y * TM;
  // Rows past P or CO read the last one instead (the result is not written).
  uint xrow[TM], wrow[TN];
  [[unroll]] for (uint i = 0u; i < TM; ++i) xrow[i] = min(m0 + i, p.P - 1u) * (p.CI / VEC);
  [[unroll]] for (uint j = 0u; j < TN; ++j) wrow[j] = min(n0 + j, p.CO - 1u) * (p.CI / VEC);
  AFLOAT acc[TM][TN];
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = AFLOAT(0.0);
  }
  // Consecutive invocations read consecutive words of every row.
  for (uint k = t; k < p.CI / VEC; k += WG_K) accumulate(k, xrow, wrow, acc);
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint j = 0u; j < TN; ++j) partial[i * TN + j][t] = acc[i][j];
  }
  barrier();
  for (uint half_k = WG_K / 2u; half_k > 0u; half_k /= 2u) {
    if (t < half_k) {
      [[unroll]] for (uint v = 0u; v < TM * TN; ++v) partial[v][t] += partial[v][t + half_k];
    }
    barrier();
  }
  // Output v is pixel v / TN, channel v % TN: neighbouring invocations write
  // neighbouring channels.
  for (uint v = t; v < TM * TN; v += WG_K) {
    const uint m = m0 + v / TN, n = n0 + v % TN;
    if (m < p.P && n < p.CO) {
      const AFLOAT sum = AFLOAT(b[n]) + partial[v][0];
      y[m * p.CO + n] = SFLOAT(p.R == 2u ? clamp(sum, AFLOAT(0.0), AFLOAT(6.0)) : sum);
    }
  }
}
#else
void main() {
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint n0 = gl_WorkGroupID.x * TILE_N, m0 = gl_WorkGroupID.y * TILE_M;
  AFLOAT acc[TM][TN];
  [[unroll]] for (uint j = 0u; j < TN; ++j) {
    // Past CO no bias (its output is not written): a branch, not a select,
    // which could read past the buffer.
    AFLOAT bias = AFLOAT(0.0);
    if (n0 + tx + j * WG_N < p.CO) bias = AFLOAT(b[n0 + tx + j * WG_N]);
    [[unroll]] for (uint i = 0u; i < TM; ++i) acc[i][j] = bias;
  }
#if STAGED
  const uint lid = ty * WG_N + tx;
  // No early return: every invocation reaches the barriers.
  for (uint k0 = 0u; k0 < p.CI; k0 += BK) {
    STAGE(xs, x, m0, p.P, BM)
    STAGE(ws, w, n0, p.CO, BN)
    barrier();
    // Not [[unroll]]: fully unrolled, BK = 32 over an 8 × 8 register tile
    // took lavapipe seconds per variant to compile; drivers still unroll
    // what they find worth it.
    for (uint k = 0u; k < BK; ++k) {
      AFLOAT a[TM], wv[TN];
      [[unroll]] for (uint i = 0u; i < TM; ++i) a[i] = xs[k][ty + i * WG_M];
      [[unroll]] for (uint j = 0u; j < TN; ++j) wv[j] = ws[k][tx + j * WG_N];
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = fma(a[i], wv[j], acc[i][j]);
      }
    }
    barrier();  // the next slice overwrites the tiles
  }
#else
  // Rows past P or CO read the last one instead (the result is not written):
  // no branch in the loop.
  uint xrow[TM], wrow[TN];
  [[unroll]] for (uint i = 0u; i < TM; ++i) xrow[i] = min(m0 + ty + i * WG_M, p.P - 1u) * (p.CI / VEC);
  [[unroll]] for (uint j = 0u; j < TN; ++j) wrow[j] = min(n0 + tx + j * WG_N, p.CO - 1u) * (p.CI / VEC);
  for (uint k = 0u; k < p.CI / VEC; ++k) accumulate(k, xrow, wrow, acc);
#endif
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint m = m0 + ty + i * WG_M;
    if (m >= p.P) break;
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint n = n0 + tx + j * WG_N;
      if (n < p.CO) y[m * p.CO + n] = SFLOAT(p.R == 2u ? clamp(acc[i][j], AFLOAT(0.0), AFLOAT(6.0)) : acc[i][j]);
    }
  }
}
#endif
