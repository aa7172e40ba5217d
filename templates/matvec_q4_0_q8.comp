#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_0 (QTYPE 1) or
// Q8_0 (QTYPE 2) rows, x quantized to 8 bits in shared memory
// (include/x_q8.glsl), laid out as matvec_q4k_q8.comp lays out Q4_K.
//
// Why not the generic matvec_quant_q8.comp: there an invocation takes one
// unit (one 4-byte word of one block, 8 weights) per step, so per 8 weights
// it loads and converts the block's fp16 d, reads the 2-byte-aligned word as
// one or two loads plus shifts, re-biases both nibble runs by -8 (3 integer
// ops per run) and scales two dot products separately: about 30 instructions
// per 8 weights and row (about 7 per byte of weights, what an SM issues per
// byte at the read ceiling). Here an invocation takes a pair of blocks (64
// weights) per step, so those costs are paid once per block:
//
// Eight blocks (256 weights: 144 bytes Q4_0, 272 Q8_0) are a group, 16-byte
// aligned when the row is (K % 256 == 0, checked by the host). Four
// invocations share a group, invocation `part` taking blocks 2*part and
// 2*part+1: a pair of PW words (9 or 17) starting at word PW*part of the
// group, i.e. at word `part` of the uvec4 floor(PW*part/4) (PW is 1 mod 4).
// It reads LV uvec4s from there (three or five; 16-byte loads, neighbouring
// invocations' overlapping) and selects its PW words with 19 or 35 selects.
// The pair is then
//   word 0          fp16 d of block A | its first 2 quant bytes
//   words 1..QW-1   block A's quant bytes 2..
//   word QW         its last 2 quant bytes | fp16 d of block B
//   words QW+1..    block B's quant words (aligned)
// (QW = 4 quant words per Q4_0 block, 8 per Q8_0 block); block A's words are
// realigned by 16 bits. A Q4_0 quant word k holds weights 4k..4k+3 in its low
// nibbles and 16+4k.. in its high nibbles, so `w & 0x0F0F0F0F` dots with x
// word k and `(w >> 4) & 0x0F0F0F0F` with x word 4+k, unbiased; the -8 is
// folded in once per block as 8*sum(round(x/dx)) over its 32 values (so the
// result is the same d*dx*idot(q-8, round(x/dx)) as the generic path's, with
// no per-weight bias ops). Each block adds d*dx*float(idot) to the sums.
//
// The walk over rows, groups (its units) and segments is
// include/matvec_q8_walk.glsl's (PARTS = 4). A subgroup of 32 then reads 8
// rows' groups (few distinct x words: broadcasts, two banks per 4 parts).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW (4 * slots),
// UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host only); REDUCTION,
// X_QUANT, W_STAGE and BLOCK_PAIRS are defined but fixed. Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl.
// Needs shaderIntegerDotProduct and subgroup shuffles among 4 invocations.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"

#define PARTS 4
#define S (THREADS_PER_ROW / 4)  // slots: groups walked side by side
#define U UNROLL

#if QTYPE == 1
#define QW 4u   // quant words per block
#define PW 9u   // words per pair of blocks
#define GV 9u   // uvec4s per group of 8 blocks
#define LV 3u   // uvec4s read per invocation per group
#elif QTYPE == 2
#define QW 8u
#define PW 17u
#define GV 17u
#define LV 5u
#else
#error "matvec_q4_0_q8.comp takes QTYPE 1 (Q4_0) or 2 (Q8_0)"
#endif
#define LW (4u * LV)  // words read per invocation per group

#if (THREADS_PER_ROW % 4) != 0
#error "THREADS_PER_ROW must be a multiple of 4"
#endif

#include "matvec_q8_walk.glsl"

layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

uint part;  // pair of blocks (0..3) of a group this invocation takes
uint lv0;   // the first uvec4 it reads of a group: floor(PW*part/4)

void init_part(uint p, uint slot) {
  part = p;
  lv0 = (PW * p) / 4u;
}

uint row_start(uint row, uint nu) { return row * (nu * GV); }

// The LV uvec4s that hold this invocation's pair of a group, per row.
struct Unit {
  uint wd[RT][LW];
};

void load_unit(uint g, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint v0 = row_base[i] + g * GV + lv0;
    [[unroll]] for (uint l = 0; l < LV; ++l) {
      const uvec4 q = w4[v0 + l];
      v.wd[i][4 * l + 0] = q.x;
      v.wd[i][4 * l + 1] = q.y;
      v.wd[i][4 * l + 2] = q.z;
      v.wd[i][4 * l + 3] = q.w;
    }
  }
}

// Adds group g (lg-th of the segment) for every row and column.
void math_unit(uint lg, Unit v) {
  // Per row: the pair's words (wd[part ..]), the two scales, and the quant
  // words of both blocks (Q4_0: low and high nibbles apart).
  float da[RT], db[RT];
#if QTYPE == 1
  uint qa[RT][2 * QW], qb[RT][2 * QW];  // [k]: low nibbles of word k, [QW+k]: high
#else
  uint qa[RT][QW], qb[RT][QW];
#endif
  const bool sel2 = (part & 2u) != 0u, sel1 = (part & 1u) != 0u;
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    uint s[PW + 1], t[PW];
    [[unroll]] for (uint k = 0; k < PW + 1; ++k) s[k] = sel2 ? v.wd[i][k + 2] : v.wd[i][k];
    [[unroll]] for (uint k = 0; k < PW; ++k) t[k] = sel1 ? s[k + 1] : s[k];
    da[i] = unpackHalf2x16(t[0]).x;
    db[i] = unpackHalf2x16(t[QW]).y;
    [[unroll]] for (uint k = 0; k < QW; ++k) {
      const uint a = (t[k] >> 16) | (t[k + 1] << 16);
      const uint b = t[QW + 1 + k];
#if QTYPE == 1
      qa[i][k] = a & 0x0F0F0F0Fu;
      qa[i][QW + k] = (a >> 4) & 0x0F0F0F0Fu;
      qb[i][k] = b & 0x0F0F0F0Fu;
      qb[i][QW + k] = (b >> 4) & 0x0F0F0F0Fu;
#else
      qa[i][k] = a;
      qb[i][k] = b;
#endif
    }
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    const uint xw = c * (SEG / 4u) + lg * 64u + part * 16u;  // x words of block A, then B
    const uint xg = c * (SEG / 32u) + lg * 8u + part * 2u;   // their 32-value groups
    uint xa[8], xb[8];
    [[unroll]] for (uint w = 0; w < 8u; ++w) {
      xa[w] = xq[xw + w];
      xb[w] = xq[xw + 8u + w];
    }
    const float ga = xds[xg].x, gb = xds[xg + 1u].x;
#if QTYPE == 1
    // 8 * sum of the 32 codes of each block: the -8 of every weight.
    int ba = 0, bb = 0;
    [[unroll]] for (uint w = 0; w < 8u; ++w) {
      ba += dot4_i8(xa[w], 0x01010101u);
      bb += dot4_i8(xb[w], 0x01010101u);
    }
    ba *= 8;
    bb *= 8;
#endif
    [[unroll]] for (uint i = 0; i < RT; ++i) {
#if QTYPE == 1
      int sa = -ba, sb = -bb;
      [[unroll]] for (uint w = 0; w < 8u; ++w) {
        sa += dot4_i8(qa[i][w], xa[w]);
        sb += dot4_i8(qb[i][w], xb[w]);
      }
#else
      int sa = 0, sb = 0;
      [[unroll]] for (uint w = 0; w < 8u; ++w) {
        sa += dot4_i8(qa[i][w], xa[w]);
        sb += dot4_i8(qb[i][w], xb[w]);
      }
#endif
      acc[i][c] += (da[i] * ga) * float(sa) + (db[i] * gb) * float(sb);
    }
  }
}

#include "matvec_q8_walk_main.glsl"
