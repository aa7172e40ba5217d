#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_K rows (QTYPE 5),
// x fp32 (exact): matmul_q4k's SUPER_BLOCK=1 with X_QUANT=0. (The generic
// matvec_quant.comp serves Q4_K too, but measured 1.6x slower on an H100:
// results/h200/session13/.)
//
// A workgroup computes ROWS_PER_WG rows of W against COLS_PER_PASS rows of x
// (workgroup (i, j) owns outputs y[j*COLS_PER_PASS + c][i*ROWS_PER_WG + r]).
// Its invocations are numbered (slot, row group, part), part fastest:
//   part       which 4 consecutive qs words (one 16-byte load) of a
//              super-block, 8 parts per super-block (all inside one 64-weight
//              chunk, so two sub-blocks and one scale/min pair per invocation);
//   row group  which rows: g, g + G, g + 2G, ... with
//              G = WG_SIZE / THREADS_PER_ROW groups, each invocation owning
//              ROWS_PER_WG / G rows;
//   slot       which super-block: the workgroup walks the row
//              S = THREADS_PER_ROW / 8 super-blocks side by side.
// Neighbouring invocations of different row groups read the same x, so a
// subgroup's x loads touch few cache lines, and every x value an invocation
// loads serves all its rows (and every weight all COLS_PER_PASS rows of x).
// The loop takes UNROLL super-blocks per slot per step, issuing all their
// weight loads before any arithmetic; a remainder loop takes the rest.
// Partial sums are reduced across the parts and slots at the end
// (REDUCTION 0: butterfly of subgroup shuffles over the parts, then shared memory
// across slots; 1: a shared-memory tree).
//
// Dequantization: the weights enter the dot products as floats f = 1 + q/16
// made by placing a nibble q into the mantissa bits 19..22 of 1.0 (a shift
// and a mask per weight, no int-to-float conversion), so that sum(x*w) over
// a sub-block = a*sum(x*f) - b*sum(x) (a, b from d, dmin and the
// sub-block's scale and min).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW (8 * slots),
// UNROLL, SUBGROUP_SIZE (0 = device default; only the host uses it),
// REDUCTION, COLS_PER_PASS; X_QUANT, X_SEGMENT, W_STAGE and SUPER_BLOCK are
// defined but fixed. ACT_F16 (fp16 x and y): include/matmul_xy.glsl.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

#include "q4k.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T 8                     // parts per super-block
#define S (THREADS_PER_ROW / 8)  // slots
#define U UNROLL
#define G (WG_SIZE / (T * S))  // row groups
#define RT (R / G)             // rows per invocation
#define WPT (32 / T)           // qs words per invocation per block: one uvec4

#if QTYPE != 5
#error "matvec_q4k.comp takes QTYPE 5 (Q4_K)"
#endif
#if (THREADS_PER_ROW % 8) != 0 || (WG_SIZE % (T * S)) != 0 || G < 1 || (R % G) != 0
#error "THREADS_PER_ROW must be a multiple of 8 dividing WG_SIZE, the row groups must divide ROWS_PER_WG"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

#include "matvec_shape.glsl"

#include "matmul_xy.glsl"
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

#if REDUCTION == 0
shared float partial[S * R * C];
#else
shared float tree[RT * C * WG_SIZE];
#endif

uint row_base[RT];  // first uvec4 of each row of this invocation
uint col_base[C];   // first vec4 of each row of x
uint chunk, wl0, scale_shift;
float acc[RT][C];

// The header and this invocation's qs words of super-block b of every row.
void load_block(uint b, out uvec4 hd[RT], out uint q[RT][WPT]) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint block4 = row_base[i] + b * Q4K_BLOCK_VEC4S;
    hd[i] = w4[block4];
    const uvec4 v = w4[(block4 * 4u + Q4K_QS_WORD + chunk * 8u + wl0) / 4u];
    q[i][0] = v.x;
    q[i][1] = v.y;
    q[i][2] = v.z;
    q[i][3] = v.w;
  }
}

// Adds super-block b's contribution for every row and x row.
void math_block(uint b, uvec4 hd[RT], uint q[RT][WPT]) {
  // Per row: a and b of the low (sub-block 2*chunk) and high (2*chunk + 1)
  // halves. The 6-bit values become floats through the exponent of 2^23:
  // (2^23 + s) - 2^23 is exact, and needs no int-to-float conversion.
  float a_lo[RT], a_hi[RT], b_lo[RT], b_hi[RT];
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uvec4 h = hd[i];
    const vec2 dm = unpackHalf2x16(h.x);
    const uint sw = chunk < 2u ? q4k_scales_lo(h.y) : q4k_scales_hi(h.y, h.w);
    const uint mw = chunk < 2u ? q4k_mins_lo(h.z) : q4k_mins_hi(h.z, h.w);
    const uint s2 = sw >> scale_shift;  // scale(lo) in bits 0-7, scale(hi) in 8-15
    const uint m2 = mw >> scale_shift;
    const float da = 16.0 * dm.x;  // f = 1 + q/16: q = 16*f - 16
    const float half_a = 1.0;
    a_lo[i] = da * (uintBitsToFloat(0x4B000000u | (s2 & 0xFFu)) - 8388608.0);
    a_hi[i] = da * (uintBitsToFloat(0x4B000000u | ((s2 >> 8) & 0xFFu)) - 8388608.0);
    b_lo[i] = half_a * a_lo[i] + dm.y * (uintBitsToFloat(0x4B000000u | (m2 & 0xFFu)) - 8388608.0);
    b_hi[i] = half_a * a_hi[i] + dm.y * (uintBitsToFloat(0x4B000000u | ((m2 >> 8) & 0xFFu)) - 8388608.0);
  }

  [[unroll]] for (uint c = 0; c < C; ++c) {
    // x for this invocation's words: low nibbles at 64*chunk + 4*wl, high
    // nibbles 32 further on.
    const uint xbase = col_base[c] + b * 64u + chunk * 16u + wl0;
    vec4 xlo[WPT], xhi[WPT];
    vec4 sum_lo = vec4(0.0), sum_hi = vec4(0.0);
    [[unroll]] for (uint w = 0; w < WPT; ++w) {
      xlo[w] = x4(xbase + w);
      xhi[w] = x4(xbase + 8u + w);
      sum_lo += xlo[w];
      sum_hi += xhi[w];
    }
    const float sx_lo = (sum_lo.x + sum_lo.y) + (sum_lo.z + sum_lo.w);
    const float sx_hi = (sum_hi.x + sum_hi.y) + (sum_hi.z + sum_hi.w);
    [[unroll]] for (uint i = 0; i < RT; ++i) {
      float f_lo = 0.0, f_hi = 0.0;
      [[unroll]] for (uint w = 0; w < WPT; ++w) {
        const uint v = q[i][w];
        // Only left shifts per nibble (the upper half word is shifted down
        // once).
        const uint u = v >> 16;
        f_lo = fma(xlo[w].x, Q4K_NIB_F(v, 0), f_lo);
        f_lo = fma(xlo[w].y, Q4K_NIB_F(v, 8), f_lo);
        f_lo = fma(xlo[w].z, Q4K_NIB_F(u, 0), f_lo);
        f_lo = fma(xlo[w].w, Q4K_NIB_F(u, 8), f_lo);
        f_hi = fma(xhi[w].x, Q4K_NIB_F(v, 4), f_hi);
        f_hi = fma(xhi[w].y, Q4K_NIB_F(v, 12), f_hi);
        f_hi = fma(xhi[w].z, Q4K_NIB_F(u, 4), f_hi);
        f_hi = fma(xhi[w].w, Q4K_NIB_F(u, 12), f_hi);
      }
      acc[i][c] += (a_lo[i] * f_lo - b_lo[i] * sx_lo) + (a_hi[i] * f_hi - b_hi[i] * sx_hi);
    }
  }
}

#if REDUCTION == 0
#define PARTS T
#include "matvec_slot_reduce.glsl"
#endif

void main() {
  x_prologue();  // include/matmul_xy.glsl: before any x4()
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
  scale_shift = 16u * (chunk & 1u);    // the chunk's two scale bytes

  // Rows and x rows past the end are clamped for loading; only stores check.
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    row_base[i] = min(row0 + group + G * i, N - 1u) * (nb * Q4K_BLOCK_VEC4S);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_base[c] = min(col0 + c, M - 1u) * (K / 4u);
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[i][c] = 0.0;
  }

  uint b = slot;
#if U > 1
  for (; b + S * (U - 1) < nb; b += S * U) {
    uvec4 hd[U][RT];
    uint q[U][RT][WPT];
    [[unroll]] for (uint u = 0; u < U; ++u) load_block(b + S * u, hd[u], q[u]);
    [[unroll]] for (uint u = 0; u < U; ++u) math_block(b + S * u, hd[u], q[u]);
  }
#endif
  for (; b < nb; b += S) {
    uvec4 hd[RT];
    uint q[RT][WPT];
    load_block(b, hd, q);
    math_block(b, hd, q);
  }

  // Reduce each acc[i][c] over the parts and slots of its row group; then
  // invocation o < R*C stores output o (row o / C, x row o % C).
#if REDUCTION == 0
  reduce_and_store(tid, part, group, slot, row0, col0);
#else
  // One tree for all RT*C sums at once, over the part bits and the slot bits
  // of tid (the row-group bits are kept).
  [[unroll]] for (uint j = 0; j < RT * C; ++j) tree[j * WG_SIZE + tid] = acc[j / C][j % C];
  barrier();
  uint done = 0u;  // tid bits already folded
  [[unroll]] for (uint stride = (T * G) * (S / 2u); stride >= T * G; stride /= 2u) {
    if ((tid & (done | stride)) == 0u) {
      [[unroll]] for (uint j = 0; j < RT * C; ++j) tree[j * WG_SIZE + tid] += tree[j * WG_SIZE + tid + stride];
    }
    done |= stride;
    barrier();
  }
  [[unroll]] for (uint stride = T / 2u; stride > 0u; stride /= 2u) {
    if ((tid & (done | stride)) == 0u) {
      [[unroll]] for (uint j = 0; j < RT * C; ++j) tree[j * WG_SIZE + tid] += tree[j * WG_SIZE + tid + stride];
    }
    done |= stride;
    barrier();
  }
  if (tid < T * G && part == 0u) {  // slot 0, part 0 of each row group
    [[unroll]] for (uint j = 0; j < RT * C; ++j) {
      const uint row = row0 + group + G * (j / C);
      const uint col = col0 + j % C;
      if (row < N && col < M) store_y(col * N + row, tree[j * WG_SIZE + tid]);
    }
  }
#endif
}
