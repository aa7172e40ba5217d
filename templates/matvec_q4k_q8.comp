#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_K rows, with the
// activations quantized to 8 bits inside the workgroup so that the weights
// enter integer dot products (four multiply-adds per instruction) instead of
// being converted to floats one by one.
//
// Activations: the workgroup walks K in segments of SEG = X_SEGMENT values
// (4096, or 16384 so that a 14336-long row is quantized at once). For each it
// quantizes its COLS_PER_PASS rows of x into shared memory: every 32 values
// (one Q4_K sub-block) get a scale dx = max|x|/127 and signed bytes
// round(x/dx), plus dx times the sum of those codes for the sub-block's min
// term. So, for sub-block j of a row with scale a_j = d*scale(j) and min
// b_j = dmin*min(j), with xq = dx * round(x/dx),
//   sum(x*w) ~ a_j * dx * idot(q, round(x/dx)) - b_j * sum(xq) = sum(xq*w),
// exact for x rounded to 8 bits (relative error about 0.5%, see the
// kernel's tolerance; include/x_q8.glsl says why the min takes the
// quantized sum).
//
// Weights: as in matvec_q4k.comp. THREADS_PER_BLOCK invocations share one
// 256-weight super-block (32/T qs words each, inside one 64-weight chunk, so
// two sub-blocks per invocation), WG_SIZE/(T*BLOCK_SLOTS) row groups split the
// ROWS_PER_WG rows (each invocation owning R/G of them, so every x word
// loaded from shared memory serves all of them), and BLOCK_SLOTS super-blocks
// are walked side by side. The low nibbles of a qs word are the four bytes of
// `w & 0x0F0F0F0F` and dot directly with four x bytes; the high nibbles the
// same after `>> 4`. Partial sums are reduced with subgroup shuffles over the
// parts, then through shared memory over the slots.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_BLOCK (4, 8 or 16),
// BLOCK_SLOTS, BLOCK_UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host
// only).
// Needs shaderIntegerDotProduct and subgroup shuffles.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"
#include "q4k.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_BLOCK
#define S BLOCK_SLOTS
#define U BLOCK_UNROLL
#define G (WG_SIZE / (T * S))  // row groups
#define RT (R / G)             // rows per invocation
#define WPT (32 / T)           // qs words per invocation per block
#define SEG X_SEGMENT            // x values quantized per segment
#define SEG_BLOCKS (SEG / 256)

#if (T != 4 && T != 8 && T != 16) || (SEG % 256) != 0 || (WG_SIZE % (T * S)) != 0 || G < 1 || (R % G) != 0
#error "THREADS_PER_BLOCK must be 4, 8 or 16, THREADS_PER_BLOCK*BLOCK_SLOTS must divide WG_SIZE, the row groups must divide ROWS_PER_WG"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };
#if WPT == 2
layout(std430, set = 0, binding = 1) readonly buffer WBuf2 { uvec2 w2[]; };
#endif
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

shared float partial[S * R * C];

uint row_base[RT];  // first uvec4 of each row of this invocation
uint col_row[C];    // row of x of each column (clamped)

#include "x_q8.glsl"
uint chunk, wl0;
float own_min;      // 1 for the invocation that adds its chunk's min terms
float acc[RT][C];

// The header and this invocation's qs words of super-block b of every row.
void load_block(uint b, out uvec4 hd[RT], out uint q[RT][WPT]) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint block4 = row_base[i] + b * Q4K_BLOCK_VEC4S;
    hd[i] = w4[block4];
    const uint qs_word = block4 * 4u + Q4K_QS_WORD + chunk * 8u + wl0;
#if WPT == 2
    const uvec2 v = w2[qs_word / 2u];
    q[i][0] = v.x;
    q[i][1] = v.y;
#else
    [[unroll]] for (uint l = 0; l < WPT / 4u; ++l) {
      const uvec4 v = w4[qs_word / 4u + l];
      q[i][4 * l + 0] = v.x;
      q[i][4 * l + 1] = v.y;
      q[i][4 * l + 2] = v.z;
      q[i][4 * l + 3] = v.w;
    }
#endif
  }
}

// Adds super-block b (lb-th of the segment) for every row and column.
void math_block(uint lb, uvec4 hd[RT], uint q[RT][WPT]) {
  const uint scale_shift = 16u * (chunk & 1u);
  vec2 a[RT], m[RT];  // per row: d*scale and dmin*min of the low and high sub-block
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uvec4 h = hd[i];
    const vec2 dm = unpackHalf2x16(h.x);
    const uint sw = (chunk < 2u ? q4k_scales_lo(h.y) : q4k_scales_hi(h.y, h.w)) >> scale_shift;
    const uint mw = (chunk < 2u ? q4k_mins_lo(h.z) : q4k_mins_hi(h.z, h.w)) >> scale_shift;
    a[i] = dm.x * vec2(float(sw & 0xFFu), float((sw >> 8) & 0xFFu));
    m[i] = (own_min * dm.y) * vec2(float(mw & 0xFFu), float((mw >> 8) & 0xFFu));
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    const uint xw = c * (SEG / 4u) + lb * 64u + chunk * 16u + wl0;  // low-nibble x words
    const uint xg = c * (SEG / 32u) + lb * 8u + chunk * 2u;         // their 32-value group
    uint xlo[WPT], xhi[WPT];
    [[unroll]] for (uint w = 0; w < WPT; ++w) {
      xlo[w] = xq[xw + w];
      xhi[w] = xq[xw + 8u + w];
    }
    const vec2 glo = xds[xg], ghi = xds[xg + 1u];
    [[unroll]] for (uint i = 0; i < RT; ++i) {
      int dlo = 0, dhi = 0;
      [[unroll]] for (uint w = 0; w < WPT; ++w) {
        dlo += dot4_i8(q[i][w] & 0x0F0F0F0Fu, xlo[w]);
        dhi += dot4_i8((q[i][w] >> 4) & 0x0F0F0F0Fu, xhi[w]);
      }
      acc[i][c] += (a[i].x * glo.x) * float(dlo) + (a[i].y * ghi.x) * float(dhi) -
                   (m[i].x * glo.y + m[i].y * ghi.y);
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint part = tid % T;
  const uint group = (tid / T) % G;
  const uint slot = tid / (T * G);
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nb = K / 256u;
  const uint first_word = part * WPT;  // within the 32 qs words
  chunk = first_word / 8u;             // 64-weight chunk: sub-blocks 2c, 2c+1
  wl0 = first_word % 8u;
  own_min = wl0 == 0u ? 1.0 : 0.0;

  // Rows and x rows past the end are clamped for loading; only stores check.
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    row_base[i] = min(row0 + group + G * i, N - 1u) * (nb * Q4K_BLOCK_VEC4S);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_row[c] = min(col0 + c, M - 1u);
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[i][c] = 0.0;
  }

  for (uint k0 = 0u; k0 < K; k0 += SEG) {
    const uint b0 = k0 / 256u;
    const uint b1 = min(nb, b0 + SEG_BLOCKS);
    uint b = b0 + slot;
    // The first step's weights are requested before x is quantized, so that
    // their latency overlaps the quantization (for K <= S*U*256 that is the
    // whole row).
    uvec4 hd[U][RT];
    uint q[U][RT][WPT];
    const bool first_step = b + S * (U - 1) < b1;
    if (first_step) {
      [[unroll]] for (uint u = 0; u < U; ++u) load_block(b + S * u, hd[u], q[u]);
    }
    barrier();  // the previous segment's x is no longer read
    quantize_segment(k0, min(SEG, K - k0));
    barrier();
    if (first_step) {
      [[unroll]] for (uint u = 0; u < U; ++u) math_block(b + S * u - b0, hd[u], q[u]);
      b += S * U;
    }
#if U > 1
    for (; b + S * (U - 1) < b1; b += S * U) {
      [[unroll]] for (uint u = 0; u < U; ++u) load_block(b + S * u, hd[u], q[u]);
      [[unroll]] for (uint u = 0; u < U; ++u) math_block(b + S * u - b0, hd[u], q[u]);
    }
#endif
    for (; b < b1; b += S) {
      load_block(b, hd[0], q[0]);
      math_block(b - b0, hd[0], q[0]);
    }
  }

  // Reduce each acc[i][c] over the parts (shuffles) and slots (shared memory);
  // invocation o < R*C then stores output o (row o / C, x row o % C).
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      float s = acc[i][c];
      [[unroll]] for (uint off = T / 2u; off > 0u; off /= 2u) s += subgroupShuffleXor(s, off);
      if (part == 0u) partial[(slot * R + group + G * i) * C + c] = s;
    }
  }
  barrier();
  for (uint o = tid; o < R * C; o += WG_SIZE) {
    float s = 0.0;
    [[unroll]] for (uint k = 0; k < S; ++k) s += partial[k * (R * C) + o];
    const uint row = row0 + o / C;
    const uint col = col0 + o % C;
    if (row < N && col < M) y[col * N + row] = s;
  }
}
