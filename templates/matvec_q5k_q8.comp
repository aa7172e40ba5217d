#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q5_K rows (QTYPE 3),
// x quantized to 8 bits in shared memory (include/x_q8.glsl), laid out as
// matvec_q4k_q8.comp lays out Q4_K (matmul_q5k's SUPER_BLOCK=1).
//
// Why not the generic matvec_quant_q8.comp: there an invocation takes one
// unit (one qs word, 8 weights) per step and redoes the super-block's work
// for it: the header's four words, the 6-bit scale and min of both
// sub-blocks, the fp16 d and dmin, the qh word, and two scaled dot products
// per row; about 7 instructions per byte of weights, which is what an H200
// issues per byte at its read ceiling. Here the super-block's costs are paid
// once per 64 weights:
//
// A Q5_K super-block is 176 bytes = 11 uvec4, so it is 16-byte aligned
// wherever the buffer is (q5k.glsl):
//   uvec4 0       d|dmin, 12 bytes of 6-bit scales and mins (as Q4_K's)
//   uvec4 1..2    qh: 32 bytes of fifth bits
//   uvec4 3..10   qs: 128 bytes of nibbles, 32 per 64-weight chunk
// Weight t = 64c + 32h + l is nibble h of qs byte 32c + l plus 16 times bit
// 2c + h of qh byte l, in sub-block 2c + h. Four invocations share a
// super-block, invocation `part` taking chunk c = part (sub-blocks 2c and
// 2c+1, 64 weights): it reads the header, the whole qh (every l of its
// chunk) and its chunk's two qs uvec4s, five 16-byte loads. For qs word w
// (bytes l = 4w..4w+3) and u = qh word w >> 2c,
//   low run  (sub-block 2c):   (q & 0x0F0F0F0F)      | ((u << 4) & 0x10101010)
//   high run (sub-block 2c+1): ((q >> 4) & 0x0F0F0F0F) | ((u << 3) & 0x10101010)
// are four codes 0..31 each, dotted with x words 16c + w and 16c + 8 + w of
// the super-block (d*scale and dmin*min applied once per sub-block; the min
// term uses the sum of the quantized x per 32 values, as matvec_q4k_q8.comp).
// The codes are built once per row and serve every x row of the pass.
//
// The walk over rows, units and segments is include/matvec_q8_walk.glsl's
// (PARTS = 4: the codes are built once per row and serve every x row of
// the pass).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW (4 * slots),
// UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host only); REDUCTION,
// X_QUANT, W_STAGE and SUPER_BLOCK are defined but fixed.
// Needs shaderIntegerDotProduct and subgroup shuffles among 4 invocations.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"
#include "q4k.glsl"

#define PARTS 4
#define S (THREADS_PER_ROW / 4)  // slots: super-blocks walked side by side
#define U UNROLL

#if QTYPE != 3
#error "matvec_q5k_q8.comp takes QTYPE 3 (Q5_K)"
#endif
#if (THREADS_PER_ROW % 4) != 0
#error "THREADS_PER_ROW must be a multiple of 4"
#endif

#include "matvec_q8_walk.glsl"

#define BV 11u    // uvec4s per super-block
#define QH_V 1u   // its first qh uvec4
#define QS_V 3u   // its first qs uvec4

layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

uint chunk;  // 64-weight chunk (0..3) of every super-block this invocation takes

void init_part(uint part, uint slot) { chunk = part; }

uint row_start(uint row, uint nu) { return row * (nu * BV); }

// The header, the qh words and this invocation's chunk of qs words of a
// super-block, per row.
struct Unit {
  uvec4 hd[RT];
  uint qh[RT][8];
  uint qs[RT][8];
};

void load_unit(uint b, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint block4 = row_base[i] + b * BV;
    v.hd[i] = w4[block4];
    [[unroll]] for (uint l = 0; l < 2u; ++l) {
      const uvec4 h = w4[block4 + QH_V + l];
      const uvec4 q = w4[block4 + QS_V + 2u * chunk + l];
      v.qh[i][4 * l + 0] = h.x;
      v.qh[i][4 * l + 1] = h.y;
      v.qh[i][4 * l + 2] = h.z;
      v.qh[i][4 * l + 3] = h.w;
      v.qs[i][4 * l + 0] = q.x;
      v.qs[i][4 * l + 1] = q.y;
      v.qs[i][4 * l + 2] = q.z;
      v.qs[i][4 * l + 3] = q.w;
    }
  }
}

// Adds super-block b (lb-th of the segment) for every row and column.
void math_unit(uint lb, Unit v) {
  const uint bit_shift = 2u * chunk;  // qh bit of the low run; the high run's is the next
  vec2 a[RT], m[RT];         // per row: d*scale and dmin*min of the low and high sub-block
  uint lo[RT][8], hi[RT][8];  // per row: the 5-bit codes of the low and high runs
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    q4k_chunk_scale_min(v.hd[i], chunk, a[i], m[i]);
    [[unroll]] for (uint w = 0; w < 8u; ++w) {
      const uint u = v.qh[i][w] >> bit_shift;
      lo[i][w] = (v.qs[i][w] & 0x0F0F0F0Fu) | ((u << 4) & 0x10101010u);
      hi[i][w] = ((v.qs[i][w] >> 4) & 0x0F0F0F0Fu) | ((u << 3) & 0x10101010u);
    }
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    const uint xw = c * (SEG / 4u) + lb * 64u + chunk * 16u;  // low-run x words
    const uint xg = c * (SEG / 32u) + lb * 8u + chunk * 2u;   // their 32-value group
    uint xlo[8], xhi[8];
    [[unroll]] for (uint w = 0; w < 8u; ++w) {
      xlo[w] = xq[xw + w];
      xhi[w] = xq[xw + 8u + w];
    }
    const vec2 glo = xds[xg], ghi = xds[xg + 1u];
    [[unroll]] for (uint i = 0; i < RT; ++i) {
      int dlo = 0, dhi = 0;
      [[unroll]] for (uint w = 0; w < 8u; ++w) {
        dlo += dot4_i8(lo[i][w], xlo[w]);
        dhi += dot4_i8(hi[i][w], xhi[w]);
      }
      acc[i][c] += (a[i].x * glo.x) * float(dlo) + (a[i].y * ghi.x) * float(dhi) -
                   (m[i].x * glo.y + m[i].y * ghi.y);
    }
  }
}

#include "matvec_q8_walk_main.glsl"
