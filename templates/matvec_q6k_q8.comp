#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q6_K rows (QTYPE 4),
// x quantized to 8 bits in shared memory (include/x_q8.glsl), on the walk
// of include/matvec_q8_walk.glsl (matmul_q6k's SUPER_BLOCK=1): four
// invocations per super-block, 64 weights each, the block's scale work done
// once per 16 weights instead of once per generic unit.
//
// A Q6_K super-block is 210 bytes (q6k.glsl): ql (128 bytes at 0), qh (64 at
// 128), 16 int8 scales (at 192), fp16 d (at 208). Weight 128h + 32j + l
// (half h, quarter j, l < 32) has its low 4 bits in nibble j/2 of
// ql[64h + 32(j%2) + l], its high 2 bits in bits 2j, 2j+1 of qh[32h + l], the
// scale scales[8h + 2j + l/16]; it is d*scale*(q - 32).
//
// Invocation `part` p takes ql bytes 32p..32p+31, both nibbles: quarters
// j0 = p%2 (low) and j0 + 2 (high) of half h = p/2, with qh bytes 32h..
// 32h+31 (shared with its neighbour part), the scales of half h and d.
// Codes (ql nibble | qh bits << 4, 0..63) dot with x words directly; the -32
// is folded in per 16 weights as 32 * the sum of the x codes (dot with
// 0x01010101, shared by the rows), so each quarter adds
//   d * dx * (scale0 * (dot0 - 32*xs0) + scale1 * (dot1 - 32*xs1)).
//
// Loads (GGUF's layout, Q6K_SPLIT=0): blocks are only 2-byte aligned (210 bytes), so each range is read
// as the 16-byte vectors that cover it (three for 32 bytes, two for the 18
// bytes of scales and d) and the words are picked out by the block's byte
// offset o in its first vector: two select levels for o/4, a 16-bit
// realignment for o%4 = 2. Why vectors: with 32-bit loads each load
// instruction of a subgroup touched one 32-byte sector per word read (the
// parts' words 64 bytes apart, the rows further), which capped the kernel
// far below the read ceiling; a subgroup's vector loads now cover one
// block's bytes of each of its rows side by side. Any K % 256 == 0 works:
// o is computed from each row's byte offset.
//
// Q6K_SPLIT=1 (the matmul_q6k_split kernels): W in the split layout of
// reference/weight_layout.hpp, every block's 208 bytes of ql, qh and scales
// at 208*i (16-byte aligned), then the matrix's fp16 d values (block i's at
// 208*B + 2*i, B = N*K/256): each range is its own two vectors (the scales
// one), no realignment, and d one 32-bit word.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW (4 * slots),
// UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host only), Q6K_SPLIT
// (the kernel's layout, not searched); REDUCTION, X_QUANT, W_STAGE and
// SUPER_BLOCK are defined but fixed.
// Needs shaderIntegerDotProduct and subgroup shuffles among 4 invocations.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"

#define PARTS 4
#define S (THREADS_PER_ROW / 4)  // slots: super-blocks walked side by side
#define U UNROLL

#if QTYPE != 4
#error "matvec_q6k_q8.comp takes QTYPE 4 (Q6_K)"
#endif

#include "matvec_q8_walk.glsl"

#ifndef Q6K_SPLIT
#define Q6K_SPLIT 0
#endif

layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

uint hf;  // half of every super-block this invocation takes
uint j0;  // its low-nibble quarter; j0 + 2 is its high-nibble one

void init_part(uint part, uint slot) {
  hf = part >> 1;
  j0 = part & 1u;
}

#if Q6K_SPLIT
layout(std430, set = 0, binding = 1) readonly buffer WBufD { uint w1[]; };

// Rows are addressed in blocks (a row of nu blocks is nu of them).
uint row_start(uint row, uint nu) { return row * nu; }

// This invocation's ql and qh vectors, the scales of one super-block per
// row, and the word holding its d with the block's index (which half).
struct Unit {
  uvec4 ql[RT][2];
  uvec4 qh[RT][2];
  uvec4 sc[RT];
  uint dw[RT];
  uint blk[RT];
};

void load_unit(uint b, out Unit v) {
  const uint d_word = 52u * N * (K / 256u);  // 208*B bytes: the d values' first word
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint blk = row_base[i] + b;
    const uint a4 = 13u * blk;  // 208 bytes = 13 vectors a block
    [[unroll]] for (uint l = 0; l < 2u; ++l) {
      v.ql[i][l] = w4[a4 + 2u * (2u * hf + j0) + l];
      v.qh[i][l] = w4[a4 + 8u + 2u * hf + l];
    }
    v.sc[i] = w4[a4 + 12u];
    v.dw[i] = w1[d_word + (blk >> 1)];
    v.blk[i] = blk;
  }
}

// Row i's 8 ql and 8 qh words, its 4 scale words and d.
void row_words(Unit v, uint i, out uint ql[8], out uint qh[8], out uint sc[4], out float d) {
  [[unroll]] for (uint k = 0; k < 8u; ++k) {
    ql[k] = v.ql[i][k >> 2][k & 3u];
    qh[k] = v.qh[i][k >> 2][k & 3u];
  }
  [[unroll]] for (uint k = 0; k < 4u; ++k) sc[k] = v.sc[i][k];
  d = unpackHalf2x16(v.dw[i] >> (16u * (v.blk[i] & 1u))).x;
}
#else
// Rows are addressed in bytes (a row of nu blocks is nu*210 bytes).
uint row_start(uint row, uint nu) { return row * nu * 210u; }

// The vectors covering this invocation's ql, qh, and the scales and d, of
// one super-block per row, and the block's byte offset in them.
struct Unit {
  uvec4 ql[RT][3];
  uvec4 qh[RT][3];
  uvec4 sd[RT][2];
  uint o[RT];
};

void load_unit(uint b, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint a = row_base[i] + 210u * b;
    const uint a4 = a >> 4;  // 16-byte vector of the block's first byte
    v.o[i] = a & 15u;
    [[unroll]] for (uint l = 0; l < 3u; ++l) {
      v.ql[i][l] = w4[a4 + 2u * (2u * hf + j0) + l];  // ql byte 32p = vector 2p
      v.qh[i][l] = w4[a4 + 8u + 2u * hf + l];         // qh byte 128 + 32h
    }
    v.sd[i][0] = w4[a4 + 12u];  // bytes 192..
    v.sd[i][1] = w4[a4 + 13u];
  }
}

// The 8 words that start at byte o (even, < 16) of three vectors.
void words8(uvec4 v[3], uint o, out uint r[8]) {
  const uint t[12] = uint[12](v[0].x, v[0].y, v[0].z, v[0].w, v[1].x, v[1].y, v[1].z, v[1].w, v[2].x, v[2].y,
                              v[2].z, v[2].w);
  const bool by8 = (o & 8u) != 0u, by4 = (o & 4u) != 0u, by2 = (o & 2u) != 0u;
  uint s[10], u[9];
  [[unroll]] for (uint k = 0; k < 10u; ++k) s[k] = by8 ? t[k + 2u] : t[k];
  [[unroll]] for (uint k = 0; k < 9u; ++k) u[k] = by4 ? s[k + 1u] : s[k];
  [[unroll]] for (uint k = 0; k < 8u; ++k) r[k] = by2 ? (u[k] >> 16) | (u[k + 1u] << 16) : u[k];
}

// The 5 words that start at byte o of two vectors: scales 0..15 and d.
void words5(uvec4 v[2], uint o, out uint r[5]) {
  const uint t[8] = uint[8](v[0].x, v[0].y, v[0].z, v[0].w, v[1].x, v[1].y, v[1].z, v[1].w);
  const bool by8 = (o & 8u) != 0u, by4 = (o & 4u) != 0u, by2 = (o & 2u) != 0u;
  uint s[7], u[6];
  [[unroll]] for (uint k = 0; k < 7u; ++k) s[k] = by8 ? (k + 2u < 8u ? t[k + 2u] : 0u) : t[k];
  [[unroll]] for (uint k = 0; k < 6u; ++k) u[k] = by4 ? s[k + 1u] : s[k];
  [[unroll]] for (uint k = 0; k < 5u; ++k) r[k] = by2 ? (u[k] >> 16) | (u[k + 1u] << 16) : u[k];
}

// Row i's 8 ql and 8 qh words, its 4 scale words and d, realigned.
void row_words(Unit v, uint i, out uint ql[8], out uint qh[8], out uint sc[4], out float d) {
  uint sd[5];
  words8(v.ql[i], v.o[i], ql);
  words8(v.qh[i], v.o[i], qh);
  words5(v.sd[i], v.o[i], sd);
  [[unroll]] for (uint k = 0; k < 4u; ++k) sc[k] = sd[k];
  d = unpackHalf2x16(sd[4]).x;
}
#endif

// Adds super-block b (lb-th of the segment) for every row and column.
void math_unit(uint lb, Unit v) {
  // Per row: the codes of quarters j0 ([0][k]) and j0 + 2 ([1][k]), and the
  // four int8 scales of their 16-weight runs.
  uint q[RT][2][8];
  int s[RT][4];
  float d[RT];
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    uint ql[8], qh[8], sd[4];
    row_words(v, i, ql, qh, sd, d[i]);
    [[unroll]] for (uint k = 0; k < 8u; ++k) {
      const uint h = qh[k] >> (2u * j0);
      q[i][0][k] = (ql[k] & 0x0F0F0F0Fu) | ((h << 4) & 0x30303030u);
      q[i][1][k] = ((ql[k] >> 4) & 0x0F0F0F0Fu) | (h & 0x30303030u);  // bits 2j0+4, 2j0+5 in place
    }
    // Quarter j's scales are bytes 8h + 2j, 8h + 2j + 1: in word 2h (j0) and
    // word 2h + 1 (j0 + 2), at byte 2*j0.
    [[unroll]] for (uint r = 0; r < 2u; ++r) {
      const int lo = int(sd[2u * hf]), hi = int(sd[2u * hf + 1u]);
      s[i][r] = bitfieldExtract(lo, int(16u * j0 + 8u * r), 8);
      s[i][2u + r] = bitfieldExtract(hi, int(16u * j0 + 8u * r), 8);
    }
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    [[unroll]] for (uint jj = 0; jj < 2u; ++jj) {
      const uint j = j0 + 2u * jj;
      const uint xw = c * (SEG / 4u) + lb * 64u + 32u * hf + 8u * j;  // x words of the quarter
      uint x[8];
      [[unroll]] for (uint k = 0; k < 8u; ++k) x[k] = xq[xw + k];
      // 32 * the sums of the x codes of each 16-value run.
      int b0 = 0, b1 = 0;
      [[unroll]] for (uint k = 0; k < 4u; ++k) {
        b0 += dot4_i8(x[k], 0x01010101u);
        b1 += dot4_i8(x[4u + k], 0x01010101u);
      }
      b0 *= 32;
      b1 *= 32;
      const float dx = xds[c * (SEG / 32u) + lb * 8u + 4u * hf + j].x;
      [[unroll]] for (uint i = 0; i < RT; ++i) {
        int t0 = -b0, t1 = -b1;
        [[unroll]] for (uint k = 0; k < 4u; ++k) {
          t0 += dot4_i8(q[i][jj][k], x[k]);
          t1 += dot4_i8(q[i][jj][4u + k], x[4u + k]);
        }
        acc[i][c] += (d[i] * dx) * float(s[i][2u * jj] * t0 + s[i][2u * jj + 1u] * t1);
      }
    }
  }
}

#include "matvec_q8_walk_main.glsl"
